/**
 * JSON Logic (jsonlogic.com) evaluated under a budget. Rules are written by tenants and run on the guest's request,
 * so a rule must not be able to ask for unbounded work: json-logic-js's `reduce` with `merge` doubles an array at
 * each element, and 30 elements froze the process. Same operations and results as json-logic-js 2.0.5 (the
 * reference of the parity test), except that `var` reads own properties only and a rule over its budget, or one
 * that cannot be evaluated, throws RuleRefused.
 */

/**
 * What one evaluation of one rule may do: one unit per operation evaluated and per element an operation visits;
 * every value an operation takes or builds costs its size as well (an array its elements, counted again wherever
 * the same array is nested twice; a text one unit per 1,000 characters).
 */
export const RULE_BUDGET = 2_000;
/** Parts of a rule (operations, arguments, literals), checked where rules are saved. */
export const RULE_MAX_PARTS = 200;
/** Levels of nesting of a rule (objects and arrays), checked at save and while evaluating. */
export const RULE_MAX_DEPTH = 20;

export class RuleRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RuleRefused';
  }
}

/** An operation of our own: called with the data as `this` (json-logic-js's add_operation convention) and its evaluated arguments. */
export type RuleOperation = (this: unknown, ...args: unknown[]) => unknown;

/** JSON Logic's truthiness (jsonlogic.com/truthy): an empty array is false. */
export const truthy = (value: unknown) => (Array.isArray(value) ? value.length > 0 : !!value);

const isOperation = (rule: unknown): rule is Record<string, unknown> =>
  typeof rule === 'object' && rule !== null && !Array.isArray(rule) && Object.keys(rule).length === 1;

/** Sizes of arrays already measured: an array built of others is measured from theirs, never walked again. */
const sizes = new WeakMap<object, number>();

function sizeOf(value: unknown): number {
  if (typeof value === 'string') return 1 + Math.floor(value.length / 1_000);
  if (!Array.isArray(value)) return 1;
  let size = sizes.get(value);
  if (size === undefined) {
    size = value.length;
    for (const item of value) size += Array.isArray(item) ? sizeOf(item) : typeof item === 'string' ? sizeOf(item) - 1 : 0;
    sizes.set(value, size);
  }
  return size;
}

function lookup(data: unknown, path: unknown, notFound: unknown = null): unknown {
  if (path === undefined || path === '' || path === null) return data;
  let node = data;
  for (const key of String(path).split('.')) {
    if (node === null || node === undefined) return notFound;
    node = Object.hasOwn(Object(node), key) ? (node as Record<string, unknown>)[key] : undefined;
    if (node === undefined) return notFound;
  }
  return node;
}

function missing(data: unknown, keys: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const key of keys) {
    const value = lookup(data, key);
    if (value === null || value === '') out.push(key);
  }
  return out;
}

type Plain = (this: unknown, ...args: any[]) => unknown;

/** The operations that take their arguments evaluated (the others steer evaluation themselves, in `evaluate`). */
const PLAIN: Record<string, Plain> = {
  // biome-ignore lint/suspicious/noDoubleEquals: JSON Logic's == is JavaScript's loose equality, by its specification.
  '==': (a, b) => a == b,
  '===': (a, b) => a === b,
  // biome-ignore lint/suspicious/noDoubleEquals: JSON Logic's != is JavaScript's loose inequality, by its specification.
  '!=': (a, b) => a != b,
  '!==': (a, b) => a !== b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '<': (a, b, c) => (c === undefined ? a < b : a < b && b < c),
  '<=': (a, b, c) => (c === undefined ? a <= b : a <= b && b <= c),
  '!!': (a) => truthy(a),
  '!': (a) => !truthy(a),
  '%': (a, b) => a % b,
  // As json-logic-js: an empty string holds nothing (it answers false for a falsy `b` before looking inside).
  in: (a, b) => ((typeof b === 'string' && b !== '') || Array.isArray(b) ? b.indexOf(a) !== -1 : false),
  cat: (...args) => args.join(''),
  substr: (source, start, end) => {
    // A negative end counts from the end (PHP's substr), as json-logic-js does.
    if (end < 0) {
      const rest = String(source).substr(start);
      return rest.substr(0, rest.length + end);
    }
    return String(source).substr(start, end);
  },
  '+': (...args) => args.reduce((a, b) => parseFloat(a) + parseFloat(b), 0),
  '*': (...args) => args.reduce((a, b) => parseFloat(a) * parseFloat(b)),
  '-': (a, b) => (b === undefined ? -a : a - b),
  '/': (a, b) => a / b,
  min: (...args) => Math.min(...args),
  max: (...args) => Math.max(...args),
  merge: (...args) => args.reduce((a, b) => a.concat(b), []),
  var: function (this: unknown, path, notFound) {
    return lookup(this, path, notFound === undefined ? null : notFound);
  },
  missing: function (this: unknown, ...args) {
    return missing(this, Array.isArray(args[0]) ? args[0] : args);
  },
  missing_some: function (this: unknown, need, options) {
    const keys = Array.isArray(options) ? options : [options];
    const absent = missing(this, keys);
    return options?.length - absent.length >= need ? [] : absent;
  },
};

/** The operations that steer the evaluation of their arguments (`evaluate` runs them). */
const STEERING = ['if', '?:', 'and', 'or', 'filter', 'map', 'reduce', 'all', 'none', 'some'];

/** json-logic-js's operations, but `log` (it writes to the console) and method calls (`"a.b"`). */
export const JSON_LOGIC_OPERATIONS: ReadonlySet<string> = new Set([...STEERING, ...Object.keys(PLAIN)]);

/** One evaluation: what is left of the budget, shared by every part of the rule. */
class Evaluation {
  private left = RULE_BUDGET;

  constructor(private readonly own: Record<string, RuleOperation>) {}

  private spend(units: number) {
    this.left -= units;
    if (this.left < 0) throw new RuleRefused(`needs more than ${RULE_BUDGET} units of work`);
  }

  /** A value an operation builds costs its size, and so does every value it takes. */
  private built<T>(value: T): T {
    this.spend(sizeOf(value));
    return value;
  }

  evaluate(rule: unknown, data: unknown, depth: number): unknown {
    this.spend(1);
    if (depth > RULE_MAX_DEPTH) throw new RuleRefused(`is nested more than ${RULE_MAX_DEPTH} levels deep`);
    if (Array.isArray(rule)) return this.built(rule.map((part) => this.evaluate(part, data, depth + 1)));
    if (!isOperation(rule)) return rule;
    const op = Object.keys(rule)[0];
    const given = rule[op];
    const args = Array.isArray(given) ? given : [given];
    // Levels as the rule is written: an argument list is a level of its own, a single argument is not.
    const next = Array.isArray(given) ? depth + 2 : depth + 1;
    switch (op) {
      case 'if':
      case '?:': {
        let i = 0;
        for (; i < args.length - 1; i += 2) if (truthy(this.evaluate(args[i], data, next))) return this.evaluate(args[i + 1], data, next);
        return args.length === i + 1 ? this.evaluate(args[i], data, next) : null;
      }
      case 'and':
      case 'or': {
        let current: unknown;
        for (const part of args) {
          current = this.evaluate(part, data, next);
          if (truthy(current) === (op === 'or')) return current;
        }
        return current;
      }
      case 'filter':
      case 'map':
      case 'all':
      case 'none':
      case 'some': {
        const list = this.evaluate(args[0], data, next);
        const logic = args[1];
        if (!Array.isArray(list)) return op === 'none' ? true : op === 'all' || op === 'some' ? false : [];
        if (op === 'filter') return this.built(list.filter((item) => truthy(this.evaluate(logic, item, next))));
        if (op === 'map') return this.built(list.map((item) => this.evaluate(logic, item, next)));
        if (!list.length) return op === 'none';
        if (op === 'all') return list.every((item) => truthy(this.evaluate(logic, item, next)));
        const found = list.some((item) => truthy(this.evaluate(logic, item, next)));
        return op === 'some' ? found : !found;
      }
      case 'reduce': {
        const list = this.evaluate(args[0], data, next);
        const initial = args[2] !== undefined ? this.evaluate(args[2], data, next) : null;
        if (!Array.isArray(list)) return initial;
        return list.reduce((accumulator, current) => this.built(this.evaluate(args[1], { current, accumulator }, next)), initial);
      }
    }
    const operation: Plain | undefined = Object.hasOwn(PLAIN, op) ? PLAIN[op] : Object.hasOwn(this.own, op) ? this.own[op] : undefined;
    if (!operation) throw new RuleRefused(`'${op}' is not a JSON Logic operation`);
    const values = args.map((part) => this.evaluate(part, data, next));
    for (const value of values) this.spend(sizeOf(value));
    const result = operation.apply(data, values);
    return Array.isArray(result) || typeof result === 'string' ? this.built(result) : result;
  }
}

/**
 * The rule's value over `data`. Throws RuleRefused when the rule needs more than RULE_BUDGET, is nested deeper than
 * RULE_MAX_DEPTH, names an unknown operation, or fails (a native error, such as `*` of nothing, is refused too).
 */
export function evaluateRule(rule: unknown, data: unknown, operations: Record<string, RuleOperation> = {}): unknown {
  try {
    return new Evaluation(operations).evaluate(rule, data, 1);
  } catch (err) {
    if (err instanceof RuleRefused) throw err;
    throw new RuleRefused(`cannot be evaluated: ${(err as Error).message}`);
  }
}
