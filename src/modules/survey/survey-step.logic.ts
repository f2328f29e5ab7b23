import jsonLogic from 'json-logic-js';
import type { Checks } from '../../shared/validation.js';

/**
 * A step's conditional logic: `{"showIf": <JSON Logic rule>}` (jsonlogic.com). The step is shown when the rule is
 * truthy over `{answers: {<step id>: value, or {<metric id>: rating} for metrics steps}, link: {customOrderId,
 * customLocationId, locationMetadata, channel, lang, <other link parameters>}}`; a step without logic is always shown.
 * Example: `{"showIf": {"<=": [{"var": "answers.step_X"}, 6]}}` asks a follow-up only of detractors.
 * One operation is ours: `{"step": "step_X"}` is true when step_X has been answered.
 */
export interface StepLogicData {
  answers: Record<string, unknown>;
  link: Record<string, unknown>;
}

/** JSON Logic's standard operations: anything else is refused when the step is saved, not when a guest answers. */
const OPERATIONS = new Set([
  'step',
  'var', 'missing', 'missing_some', 'if', '?:', '==', '===', '!=', '!==', '!', '!!', 'or', 'and', '>', '>=', '<', '<=',
  'max', 'min', '+', '-', '*', '/', '%', 'map', 'filter', 'reduce', 'all', 'none', 'some', 'merge', 'in', 'cat', 'substr',
]);
const MAX_NODES = 200;

// `this` is the data the rule is applied to (json-logic-js calls operations with it).
jsonLogic.add_operation('step', function (this: StepLogicData, id: unknown) {
  const answer = typeof id === 'string' ? this?.answers?.[id] : undefined;
  return answer !== undefined && answer !== null;
});

/**
 * Only `showIf` is interpreted, and must be a JSON Logic rule. Other keys are stored as given: `logic` held free-form
 * objects before the page read it, and clients that keep their own keys there must not start failing on update.
 */
export function checkLogic(checks: Checks, logic: Record<string, unknown> | null | undefined) {
  if (logic == null || logic.showIf === undefined) return;
  let nodes = 0;
  const walk = (rule: unknown, at: string): string | null => {
    if (++nodes > MAX_NODES) return `logic.showIf: more than ${MAX_NODES} parts`;
    if (Array.isArray(rule)) {
      for (const [i, item] of rule.entries()) {
        const bad = walk(item, `${at}[${i}]`);
        if (bad) return bad;
      }
      return null;
    }
    if (rule === null || typeof rule !== 'object') return null;
    const ops = Object.keys(rule);
    if (ops.length !== 1) return `${at}: an operation is an object with exactly one key`;
    if (!OPERATIONS.has(ops[0])) return `${at}: '${ops[0]}' is not a JSON Logic operation`;
    return walk((rule as Record<string, unknown>)[ops[0]], `${at}.${ops[0]}`);
  };
  const bad = walk(logic.showIf, 'logic.showIf');
  if (bad) checks.fail('logic.showIf', bad.replace(/^logic\.showIf[.:]? ?/, '') || 'is not a valid JSON Logic rule');
}

export function stepShown(logic: Record<string, unknown> | null | undefined, data: StepLogicData): boolean {
  if (logic?.showIf === undefined) return true;
  try {
    return jsonLogic.truthy(jsonLogic.apply(logic.showIf as jsonLogic.RulesLogic, data));
  } catch {
    // A rule that cannot be evaluated (checked at save time, so only after a library change) shows the step.
    return true;
  }
}
