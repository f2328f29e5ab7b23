import type { Checks } from '../../shared/validation.js';
import type { Metric } from '../metric/index.js';
import { type SurveyStep, type RuleLog, compiledPattern } from '../survey/index.js';
import type { Answer } from './submission.entity.js';
import type { AnswerInput } from './submission.inputs.js';

/** The ratings an `items` step takes for a dish: 1 or 5 on a thumbs scale (down, up), 1 to 5 on a five scale. */
export const itemRatings = (step: Pick<SurveyStep, 'content'>): readonly number[] =>
  String(step.content.scale ?? '5') === 'thumbs' ? [1, 5] : [1, 2, 3, 4, 5];

/**
 * Answers checked against the survey's steps: each names a step of the survey, at most once, with a value of the
 * step's kind (ratings within each metric's scale; dish ratings for menu items of the linked order's lines, `dishes`);
 * every required step is answered. A location step is not required when the submission already has its location
 * (from the link), an items step when there is no order or no dish on it (the guest never sees it).
 */
export function checkAnswers(
  checks: Checks,
  answers: AnswerInput[],
  steps: SurveyStep[],
  metrics: Map<string, Metric>,
  options: { locationKnown: boolean; log?: RuleLog; dishes?: ReadonlySet<string> },
): Answer[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const out: Answer[] = [];
  answers.forEach((answer, i) => {
    const at = `answers[${i}]`;
    const step = byId.get(answer.step);
    if (!step) return checks.fail(`${at}.step`, `'${answer.step}' is not a step of this survey`);
    if (seen.has(step.id)) return checks.fail(`${at}.step`, `step ${step.id} is answered twice`);
    seen.add(step.id);
    const value = answer.value;
    if (step.type === 'info') return checks.fail(at, `step ${step.id} (info) takes no answer`);
    if (step.type === 'metrics') {
      if (answer.items != null) checks.fail(`${at}.items`, `step ${step.id} (metrics) takes no items`);
      if (value != null) checks.fail(`${at}.value`, `step ${step.id} takes ratings, not a value`);
      const ratings = answer.ratings ?? {};
      for (const [metricId, rating] of Object.entries(ratings)) {
        const metric = metrics.get(metricId);
        if (!step.metricIds.includes(metricId) || !metric) {
          checks.fail(`${at}.ratings.${metricId}`, `step ${step.id} does not rate metric '${metricId}'`);
        } else if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < metric.scaleMin || rating > metric.scaleMax) {
          checks.fail(
            `${at}.ratings.${metricId}`,
            `step ${step.id}: rating ${JSON.stringify(rating)} is outside ${metric.name}'s scale ${metric.scaleMin} to ${metric.scaleMax}`,
          );
        }
      }
      if (step.required) {
        const missing = step.metricIds.filter((id) => !(id in ratings));
        if (missing.length) checks.fail(`${at}.ratings`, `step ${step.id} requires a rating of ${missing.join(', ')}`);
      }
      out.push({ step: step.id, ratings: ratings as Record<string, number> });
      return;
    }
    if (answer.ratings != null) checks.fail(`${at}.ratings`, `step ${step.id} (${step.type}) takes no ratings`);
    if (step.type === 'items') {
      if (value != null) checks.fail(`${at}.value`, `step ${step.id} takes items (menu item id -> rating), not a value`);
      const items = answer.items ?? {};
      const dishes = options.dishes ?? new Set<string>();
      const allowed = itemRatings(step);
      for (const [menuItem, rating] of Object.entries(items)) {
        if (!dishes.has(menuItem)) checks.fail(`${at}.items.${menuItem}`, `step ${step.id}: '${menuItem}' is not a menu item of the order's lines`);
        else if (typeof rating !== 'number' || !allowed.includes(rating))
          checks.fail(`${at}.items.${menuItem}`, `step ${step.id}: rating ${JSON.stringify(rating)} is not one of ${allowed.join(', ')}`);
      }
      if (step.required) {
        const missing = [...dishes].filter((id) => !(id in items));
        if (missing.length) checks.fail(`${at}.items`, `step ${step.id} requires a rating of ${missing.join(', ')}`);
      }
      out.push(Object.keys(items).length ? { step: step.id, items: items as Record<string, number> } : { step: step.id });
      return;
    }
    if (answer.items != null) checks.fail(`${at}.items`, `step ${step.id} (${step.type}) takes no items`);
    if (value == null) {
      if (step.required) checks.fail(`${at}.value`, `step ${step.id} requires a value`);
      out.push({ step: step.id });
      return;
    }
    checkValue(checks, `${at}.value`, step, value, options.log);
    out.push({ step: step.id, value: value as Answer['value'] });
  });
  for (const step of steps) {
    if (!step.required || seen.has(step.id) || step.type === 'info') continue;
    if (step.type === 'location' && options.locationKnown) continue;
    if (step.type === 'items' && !options.dishes?.size) continue;
    checks.fail('answers', `step ${step.id} (position ${step.position}) is required`);
  }
  return out;
}

/** Every free text is capped, whatever the step's own rules say: one answer must not fill the database. */
const MAX_TEXT = 5000;

/** A pattern stored before patterns were checked for RE2 may not run: it is not applied, and the tenant learns it from the log. */
function checkPattern(checks: Checks, field: string, step: SurveyStep, pattern: string, value: string, log?: RuleLog) {
  const compiled = compiledPattern(pattern);
  if (compiled.regex) {
    if (!compiled.regex.test(value)) checks.fail(field, `step ${step.id}: does not match the expected format`);
  } else {
    log?.warn(
      { survey: step.survey, step: step.id, field: 'validation.pattern', reason: compiled.problem },
      'a validation pattern the service refuses to run is not applied',
    );
  }
}

function checkValue(checks: Checks, field: string, step: SurveyStep, value: unknown, log?: RuleLog) {
  const rules = step.validation ?? {};
  if (step.type === 'nps') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 10)
      checks.fail(field, `step ${step.id}: an NPS answer is an integer from 0 to 10`);
    return;
  }
  if (step.type === 'choice') {
    const picked = Array.isArray(value) ? value : [value];
    const choices = Array.isArray(step.content.choices) ? (step.content.choices as string[]) : null;
    if (!picked.length || !picked.every((v) => typeof v === 'string')) return checks.fail(field, `step ${step.id}: a choice or a list of choices`);
    const unknown = choices ? picked.filter((v) => !choices.includes(v as string)) : [];
    if (unknown.length) checks.fail(field, `step ${step.id}: ${JSON.stringify(unknown[0])} is not one of its choices`);
    return;
  }
  const ok = typeof value === 'string' || typeof value === 'number' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
  if (!ok) return checks.fail(field, `step ${step.id}: a string, a number or an array of strings`);
  if (typeof value === 'string') {
    const before = checks.details.length;
    if (value.length > MAX_TEXT) checks.fail(field, `step ${step.id}: at most ${MAX_TEXT} characters`);
    if (typeof rules.minLength === 'number' && value.length < rules.minLength) checks.fail(field, `step ${step.id}: at least ${rules.minLength} characters`);
    if (typeof rules.maxLength === 'number' && value.length > rules.maxLength) checks.fail(field, `step ${step.id}: at most ${rules.maxLength} characters`);
    // The lengths first: a pattern only ever sees an answer of at most MAX_TEXT characters.
    if (typeof rules.pattern === 'string' && checks.details.length === before) checkPattern(checks, field, step, rules.pattern, value, log);
  }
  if (typeof value === 'number') {
    if (typeof rules.min === 'number' && value < rules.min) checks.fail(field, `step ${step.id}: at least ${rules.min}`);
    if (typeof rules.max === 'number' && value > rules.max) checks.fail(field, `step ${step.id}: at most ${rules.max}`);
  }
}

/**
 * The text answers to analyse (issue 52): step id -> text, for answers to `text` steps with more than blanks. A
 * submission with any is queued for the analysis workers when it completes, and again when they change.
 */
export function textAnswers(answers: readonly Answer[], steps: readonly Pick<SurveyStep, 'id' | 'type'>[]): Map<string, string> {
  const textSteps = new Set(steps.filter((s) => s.type === 'text').map((s) => s.id));
  const texts = new Map<string, string>();
  for (const a of answers) if (textSteps.has(a.step) && typeof a.value === 'string' && a.value.trim()) texts.set(a.step, a.value);
  return texts;
}

/** Whether two sets of text answers differ (a change to analyse again). */
export const textsDiffer = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) =>
  a.size !== b.size || [...a].some(([step, text]) => b.get(step) !== text);
