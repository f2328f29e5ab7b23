import fc from 'fast-check';
import jsonLogic from 'json-logic-js';
import { evaluateRule, JSON_LOGIC_OPERATIONS, RULE_BUDGET, RuleRefused } from './json-logic.js';

const DATA = { answers: { a: 3, b: ['x', 'y'], t: 'hello world', r: { mtr_1: 4 } }, link: { ch: 'qr', lang: '' } };
const PATHS = [
  'answers.a',
  'answers.b',
  'answers.b.1',
  'answers.t',
  'answers.t.length',
  'answers.r.mtr_1',
  'answers.z',
  'link.ch',
  'link.lang',
  '',
  'current',
  'accumulator',
];
const LEAF = fc.oneof(
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom('x', 'y', 'qr', 'hello', '', '3', 'a,b'),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.constantFrom(1, 2, 'x'), { maxLength: 3 }),
);
const OPS = [...JSON_LOGIC_OPERATIONS].filter((op) => !['var', 'missing', 'missing_some'].includes(op));

/** Rules of every operation but the data ones, whose quirks json-logic-js's own are (data read as logic): those are drawn apart. */
const rule = fc.letrec<{ rule: unknown }>((tie) => ({
  rule: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    LEAF,
    fc.record({ var: fc.constantFrom(...PATHS) }),
    fc.record({ var: fc.tuple(fc.constantFrom(...PATHS), LEAF) }),
    fc.record({ missing: fc.array(fc.constantFrom(...PATHS), { maxLength: 3 }) }),
    fc.record({ missing_some: fc.tuple(fc.integer({ min: 0, max: 2 }), fc.array(fc.constantFrom(...PATHS), { maxLength: 3 })) }),
    fc.tuple(fc.constantFrom(...OPS), fc.array(tie('rule'), { maxLength: 3 })).map(([op, args]) => ({ [op]: args })),
  ),
})).rule;

function reference(r: unknown): { value?: string; threw?: true } {
  try {
    return { value: JSON.stringify(jsonLogic.apply(r as never, DATA)) };
  } catch {
    return { threw: true };
  }
}

describe('the budgeted JSON Logic evaluator', () => {
  it('gives json-logic-js 2.0.5 results, or refuses where json-logic-js throws', () => {
    fc.assert(
      fc.property(rule, (r) => {
        const expected = reference(r);
        try {
          expect({ value: JSON.stringify(evaluateRule(r, DATA)) }).toEqual(expected);
        } catch (err) {
          if (!(err instanceof RuleRefused)) throw err;
          // Refused: where json-logic-js throws too, or where the rule really is over the budget.
          if (!expected.threw) expect(err.reason).toMatch(/units of work|levels deep/);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses the reduce/merge doubling, and arrays nested in themselves, within the budget', () => {
    const doubling = { reduce: [Array(30).fill(1), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
    const nesting = { '==': [{ reduce: [Array(40).fill(1), [{ var: 'accumulator' }, { var: 'accumulator' }], 1] }, 'x'] };
    const text = { reduce: [Array(40).fill(1), { cat: [{ var: 'accumulator' }, { var: 'accumulator' }] }, 'ab'] };
    for (const r of [doubling, nesting, text]) expect(() => evaluateRule(r, DATA)).toThrow(new RuleRefused(`needs more than ${RULE_BUDGET} units of work`));
  });

  it('reads own properties only, never what objects inherit', () => {
    expect(evaluateRule({ var: 'answers.constructor' }, DATA)).toBeNull();
    expect(evaluateRule({ var: ['answers.__proto__', 'none'] }, DATA)).toBe('none');
    expect(evaluateRule({ var: 'answers.b.length' }, DATA)).toBe(2);
  });
});
