import type { Logger } from 'pino';
import type { Checks } from '../../shared/validation.js';
import { evaluateRule, JSON_LOGIC_OPERATIONS, RULE_MAX_DEPTH, RULE_MAX_PARTS, RuleRefused, truthy, type RuleOperation } from '../../shared/json-logic.js';
import type { SurveyStep } from './survey-step.entity.js';

/**
 * A step's conditional logic: `{"showIf": <JSON Logic rule>}` (jsonlogic.com). The step is shown when the rule is
 * truthy over `{answers: {<step id>: value, or {<metric id>: rating} for metrics steps}, link: {customOrderId,
 * customLocationId, locationMetadata, channel, lang, <other link parameters>}}`; a step without logic is always shown.
 * Example: `{"showIf": {"<=": [{"var": "answers.step_X"}, 6]}}` asks a follow-up only of detractors.
 * One operation is ours: `{"step": "step_X"}` is true when step_X has been answered.
 * Rules are tenants' code run on a guest's request: each runs under src/shared/json-logic.ts's budget.
 */
export interface StepLogicData {
  answers: Record<string, unknown>;
  link: Record<string, unknown>;
}

/** Where the tenant's rules that the service refuses to run (logic over its budget, a pattern RE2 refuses) are reported. */
export type RuleLog = Pick<Logger, 'warn'>;

const OWN_OPERATIONS: Record<string, RuleOperation> = {
  // `this` is the data the rule is applied to (json-logic-js's convention for added operations).
  step: function (this: unknown, id: unknown) {
    const answers = (this as Partial<StepLogicData> | null)?.answers;
    const answer = typeof id === 'string' && answers && Object.hasOwn(answers, id) ? answers[id] : undefined;
    return answer !== undefined && answer !== null;
  },
};

/** A guest who has answered nothing, from a bare link: where a rule is tried when it is saved. */
const NOTHING_ANSWERED: StepLogicData = { answers: {}, link: {} };

/**
 * Only `showIf` is interpreted, and must be a JSON Logic rule of known operations, at most RULE_MAX_PARTS parts and
 * RULE_MAX_DEPTH levels, that runs within its budget for a guest who has answered nothing. Other keys are stored as
 * given: `logic` held free-form objects before the page read it, and clients that keep their own keys there must
 * not start failing on update.
 */
export function checkLogic(checks: Checks, logic: Record<string, unknown> | null | undefined) {
  if (logic == null || logic.showIf === undefined) return;
  let parts = 0;
  const walk = (rule: unknown, at: string, level: number): string | null => {
    if (++parts > RULE_MAX_PARTS) return `more than ${RULE_MAX_PARTS} parts`;
    if (level > RULE_MAX_DEPTH) return `${at}: nested more than ${RULE_MAX_DEPTH} levels deep`;
    if (Array.isArray(rule)) {
      for (const [i, item] of rule.entries()) {
        const bad = walk(item, `${at}[${i}]`, level + 1);
        if (bad) return bad;
      }
      return null;
    }
    if (rule === null || typeof rule !== 'object') return null;
    const ops = Object.keys(rule);
    if (ops.length !== 1) return `${at}: an operation is an object with exactly one key`;
    if (!JSON_LOGIC_OPERATIONS.has(ops[0]) && !Object.hasOwn(OWN_OPERATIONS, ops[0])) return `${at}: '${ops[0]}' is not a JSON Logic operation`;
    return walk((rule as Record<string, unknown>)[ops[0]], `${at}.${ops[0]}`, level + 1);
  };
  const bad = walk(logic.showIf, '', 1);
  if (bad) return checks.fail('logic.showIf', bad.replace(/^[.:]? ?/, '') || 'is not a valid JSON Logic rule');
  try {
    evaluateRule(logic.showIf, NOTHING_ANSWERED, OWN_OPERATIONS);
  } catch (err) {
    // Only the budget is a save-time refusal: a rule that fails for want of answers may work once they come.
    if (err instanceof RuleRefused && err.reason.startsWith('needs more')) {
      checks.fail('logic.showIf', `${err.reason}, the most a rule may take (tried for a guest who has answered nothing)`);
    }
  }
}

/**
 * Whether the step is shown to this guest. A rule the service refuses to run (over its budget, or stored before
 * the checks it now fails) hides its step and is logged: the guest goes on, the tenant finds it in the logs.
 */
export function stepShown(step: Pick<SurveyStep, 'id' | 'survey' | 'logic'>, data: StepLogicData, log: RuleLog): boolean {
  const rule = step.logic?.showIf;
  if (rule === undefined) return true;
  try {
    return truthy(evaluateRule(rule, data, OWN_OPERATIONS));
  } catch (err) {
    log.warn(
      { survey: step.survey, step: step.id, field: 'logic.showIf', reason: (err as Error).message },
      'a step whose logic the service refuses to run is hidden',
    );
    return false;
  }
}
