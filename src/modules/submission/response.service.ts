import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import { isId, newId } from '../../shared/id.js';
import { Checks } from '../../shared/validation.js';
import type { SubmissionFollowers } from './submission-followers.model.js';
import { recordEvent, eventRecorded } from '../event/index.js';
import { settleForOrder } from '../flow/index.js';
import { Location } from '../location/index.js';
import { Metric } from '../metric/index.js';
import { Survey, SurveyStep, stepShown, type RuleLog, LINK_CHANNELS } from '../survey/index.js';
import { Submission, type Answer } from './submission.entity.js';
import type { AnswerInput } from './submission.inputs.js';
import { checkAnswers, textAnswers } from './submission-answers.rules.js';
import { queueTextAnalysis, TEXT_ANALYSIS_CHANNEL } from '../text/index.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import { completeResponse, insertResponse, latestDeviceResponse, surveyWithSteps, updateResponse } from './submission.repo.js';
import { plainOfRow } from '../../kit/db/entity.rows.js';
import { rowOf } from '../../kit/db/entity.table.js';
import { stringifyWithMillis } from '../../shared/timestamps.js';
import { presentSubmission, resolveLink, submissionEventObject } from './submission.service.js';
import { orderDishes, type OrderDish } from '../order/index.js';

export type { OrderDish } from '../order/index.js';

/**
 * A guest's response, built one step at a time on the survey page (interface 4.9's link, issue 12's rules): created
 * `partial` at the first answered step, `completed` at the last, resumable on the same device for RESUME_DAYS, at most
 * one completed per order and survey (a unique index). The door only parses forms and renders; every rule is here.
 */
export const RESUME_DAYS = 7;
/** Faster than a person can read a survey: kept, but flagged `metadata.suspectedSpam`. */
const SUSPECT_UNDER_MS = 2000;
const MAX_EXTRA_PARAMS = 30;

/** A survey link's parameters (interface 4.9) as the page received them; `extra` are those it does not know. */
export interface SurveyLink {
  customOrderId?: string;
  customLocationId?: string;
  locationMetadata?: string;
  lang?: string;
  channel?: string;
  extra: Record<string, string>;
}

export interface GuestSurvey {
  survey: Survey;
  steps: SurveyStep[];
  metrics: Map<string, Metric>;
  /** The business's locations, for a location step (empty when the survey has none). */
  locations: Location[];
}

export type GuestSurveyState = { state: 'missing' } | { state: 'closed'; survey: Survey } | ({ state: 'open' } & GuestSurvey);

/**
 * The survey, its steps and their metrics in one statement (the page's hot path): read-only copies shaped like the
 * entities, never flushed. Only active surveys are served; a draft is as unknown as a wrong id, an archived one closed.
 */
interface OpenRow {
  id: string;
  business_id: string;
  name: string;
  status: Survey['status'];
  closing_text: string | null;
  review_url: string | null;
  languages: string[] | null;
  steps: Array<Omit<SurveyStep, 'business' | 'survey'>>;
  metrics: Metric[];
}

export async function openGuestSurvey(em: EntityManager, business: string, surveyId: string): Promise<GuestSurveyState> {
  if (!isId('business', business) || !isId('survey', surveyId)) return { state: 'missing' };
  const row = await surveyWithSteps<OpenRow>(em, business, surveyId);
  if (!row || row.status === 'draft') return { state: 'missing' };
  const survey = {
    id: row.id,
    business: row.business_id,
    name: row.name,
    status: row.status,
    closingText: row.closing_text,
    reviewUrl: row.review_url,
    languages: row.languages,
  } as Survey;
  if (survey.status === 'archived') return { state: 'closed', survey };
  const steps = row.steps.map((st) => ({ ...st, business, survey: survey.id }) as SurveyStep);
  // Plain objects, not the fork's entities: the answer may be kept and shared between requests (the guest pages' memo, kit/signals/notified.memo.ts).
  const locations = steps.some((s) => s.type === 'location')
    ? (await em.find(Location, { business }, { orderBy: { name: 'asc', id: 'asc' }, limit: 200, fields: ['id', 'name'] })).map(
        (l) => ({ id: l.id, name: l.name }) as Location,
      )
    : [];
  return { state: 'open', survey, steps, metrics: new Map(row.metrics.map((m) => [m.id, m])), locations };
}

/** Link parameters as the logic and the metadata see them: known channels only, unknown parameters capped. */
function normaliseLink(link: SurveyLink): SurveyLink {
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(link.extra).slice(0, MAX_EXTRA_PARAMS)) extra[key.slice(0, 100)] = value.slice(0, 500);
  const channel = link.channel && (LINK_CHANNELS as readonly string[]).includes(link.channel) ? link.channel : undefined;
  if (link.channel && !channel) extra.ch = link.channel.slice(0, 500);
  const cap = (v?: string) => (v ? v.slice(0, 200) : undefined);
  return {
    customOrderId: cap(link.customOrderId),
    customLocationId: cap(link.customLocationId),
    locationMetadata: cap(link.locationMetadata),
    lang: cap(link.lang),
    channel,
    extra,
  };
}

/** The order and location the link names; a malformed or unknown one is no error for a guest (the feedback counts). */
export function linkTargets(em: EntityManager, business: string, link: SurveyLink) {
  return resolveLink(
    em,
    business,
    { custom: { customOrderId: link.customOrderId, customLocationId: link.customLocationId }, locationMetadata: link.locationMetadata },
    new Checks(),
  );
}

/** Whether the link's order already has a completed response to this survey: asked when the link is opened. */
export async function orderAnswered(em: EntityManager, business: string, survey: string, order: string | null): Promise<boolean> {
  if (!order) return false;
  return (await em.count(Submission, { business, order, survey, status: 'completed', source: 'page' })) > 0;
}

/** A partial response is resumed within RESUME_DAYS of its start; a completed one is kept for good. */
const resumable = (found: Submission | null) =>
  found?.status === 'partial' && found.createdAt.getTime() < Date.now() - RESUME_DAYS * 86_400_000 ? null : found;

/**
 * The response this process last wrote for a device, with its row version: a guest's next request (the page the
 * step's answer leads to, the next step) comes within moments, and reads it here instead of from the database. A step
 * decided on it is written only while it is still the stored version (updateResponse, completeResponse), else decided
 * again on the database's: an answer given meanwhile through another process is never lost. Kept RECENT_MS, at most
 * RECENT_MAX devices (the oldest go first).
 */
const recent = new Map<string, { response: Submission; version: string; at: number }>();
const RECENT_MS = 120_000;
const RECENT_MAX = 10_000;
const deviceKey = (survey: string, sessionId: string) => `${survey} ${sessionId}`;

function remember(response: Submission, version: string) {
  const key = deviceKey(response.survey!, response.sessionId!);
  recent.delete(key);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  recent.set(key, { response: { ...response }, version, at: Date.now() });
}

const forget = (survey: string, sessionId: string) => recent.delete(deviceKey(survey, sessionId));

/** A response read as a plain copy (nothing of it is written through the ORM), with its row version (submission.repo.ts). */
async function deviceResponse(em: EntityManager, business: string, survey: string, sessionId: string, lock: boolean) {
  const kept = lock ? undefined : recent.get(deviceKey(survey, sessionId));
  if (kept && Date.now() - kept.at < RECENT_MS) return { response: { ...kept.response }, version: kept.version, row: null };
  const found = await latestDeviceResponse(em, business, survey, sessionId, lock);
  const response = resumable(found ? plainOfRow(em, Submission, found) : null);
  if (!response) return { response, version: null, row: null };
  const { row_version: version, ...row } = found!;
  return { response, version, row };
}

/**
 * This device's latest response to the survey (its cookie's session id), for showing a page: a plain copy, nothing of
 * it is written. Every page view of a returning guest asks it (prepared, in submission.repo.ts).
 */
export async function findDeviceResponse(em: EntityManager, business: string, survey: string, sessionId: string): Promise<Submission | null> {
  return (await deviceResponse(em, business, survey, sessionId, false)).response;
}

/**
 * The dishes an items step asks about: the order's lines with a menu item, one per menu item. Read only when the
 * survey has an items step and the response has an order: other surveys' pages pay nothing for it.
 */
export async function guestDishes(em: EntityManager, guest: GuestSurvey, order: string | null | undefined): Promise<OrderDish[]> {
  if (!order || !guest.steps.some((s) => s.type === 'items')) return [];
  return orderDishes(em, guest.survey.business, order);
}

function logicData(answers: Answer[], link: SurveyLink) {
  const { extra, ...known } = normaliseLink(link);
  return {
    answers: Object.fromEntries(answers.map((a) => [a.step, a.ratings ?? a.items ?? a.value ?? null])),
    link: { ...extra, ...known },
  };
}

/**
 * The steps this guest sees, in order: the location step goes when the link names the location, an items step when
 * the order has no dish to rate (`hasDishes`: no order, or no line with a menu item); logic decides the rest. `log`
 * hears of the tenant's rules the service refuses to run.
 */
export function visibleSteps(guest: GuestSurvey, answers: Answer[], link: SurveyLink, locationKnown: boolean, log: RuleLog, hasDishes = false): SurveyStep[] {
  const data = logicData(answers, link);
  return guest.steps.filter((s) => !(s.type === 'location' && locationKnown) && !(s.type === 'items' && !hasDishes) && stepShown(s, data, log));
}

/** Where a returning guest goes on: the first shown step after the last one answered. */
export function resumeStep(
  guest: GuestSurvey,
  response: Submission | null,
  link: SurveyLink,
  locationKnown: boolean,
  log: RuleLog,
  hasDishes = false,
): SurveyStep | undefined {
  const answers = response?.answers ?? [];
  const shown = visibleSteps(guest, answers, link, locationKnown, log, hasDishes);
  const answered = new Set(answers.map((a) => a.step));
  const last = Math.max(-1, ...shown.filter((s) => answered.has(s.id)).map((s) => s.position));
  return shown.find((s) => s.position > last) ?? shown.at(-1);
}

export type StepOutcome =
  | { kind: 'invalid'; details: ErrorDetail[]; shown: SurveyStep[]; dishes: OrderDish[] }
  | { kind: 'next'; step: string }
  | { kind: 'done'; submission: ReturnType<typeof presentSubmission> | null };

/** Longer than this on one step is a guest who left and came back, not time spent on it: not timed. */
const MAX_TIMED_MS = 3_600_000;

const hasAnswer = (a: AnswerInput) =>
  (a.value !== undefined && a.value !== null) ||
  (a.ratings != null && Object.keys(a.ratings).length > 0) ||
  (a.items != null && Object.keys(a.items).length > 0);

/** What a step's answer makes of the device's response (a plain copy; `created`: new, `changed`: to be stored). */
type Decision =
  | Extract<StepOutcome, { kind: 'invalid' }>
  | { kind: 'done'; submission: null }
  | { kind: 'next'; step: string; response: Submission | null; created: boolean; changed: boolean }
  | { kind: 'complete'; response: Submission; created: boolean; dishes: OrderDish[] };

interface StepInput {
  sessionId: string;
  startedAt: number;
  step: string;
  answer: AnswerInput;
  link: SurveyLink;
  /** Called before a new response is created: the door's rate limit throws from here. */
  admit?: () => void | Promise<void>;
  log: RuleLog;
  /** What follows a completion (the process's services). */
  completions: SubmissionFollowers;
}

/** How many times a step is decided again, alone, when another step of the same device changed the response first. */
const STEP_ATTEMPTS = 3;

/**
 * One step's answer from the page: checked as the API checks answers; the first answer creates the response (with
 * the link's order, location, channel and unknown parameters), the last completes it. A second completed response
 * for the same order is a conflict: the unique index decides between concurrent guests.
 *
 * A step is one read and one write, each committed alone: the write stores only what was decided on the version read
 * (submission.repo.ts), else the step is decided again. So is a completion nothing follows. A completion that records
 * the response's creation too, settles its order's feedback requests or opens a case runs in one transaction with the
 * response locked, where those writes go with it (and the order's one completed response per survey is decided).
 */
export async function answerStep(em: EntityManager, guest: GuestSurvey, input: StepInput): Promise<StepOutcome> {
  const step = guest.steps.find((s) => s.id === input.step);
  if (!step) throw AppError.notFound('Survey step', input.step);
  const link = normaliseLink(input.link);
  const survey = guest.survey.id;
  // The last step of a link that names an order completes a response with an order: straight to the transaction.
  const last = !guest.steps.some((s) => s.position > step.position);
  for (let attempt = 1; attempt <= STEP_ATTEMPTS && !(last && link.customOrderId); attempt++) {
    const { response, version } = await deviceResponse(em, guest.survey.business, survey, input.sessionId, false);
    if (response?.status === 'completed') throw answeredAlready();
    const decision = await decide(em, guest, input, step, link, response);
    if (decision.kind === 'complete') {
      if (!(await completesAlone(em, guest, decision, input.completions))) break;
      const done = await completeAlone(em, guest, decision, version!, input.startedAt);
      // Completed, or decided on a version gone: either way what was kept is not the response any more.
      forget(survey, input.sessionId);
      if (done) return done;
      continue;
    }
    if (decision.kind !== 'next') return decision;
    if (await storeStep(em, guest, decision, version, input.admit)) return { kind: 'next', step: decision.step };
  }
  forget(survey, input.sessionId);
  return em.transactional(async (tx) => {
    const { response, version, row } = await deviceResponse(tx, guest.survey.business, survey, input.sessionId, true);
    if (response?.status === 'completed') throw answeredAlready();
    const decision = await decide(tx, guest, input, step, link, response);
    if (decision.kind === 'next') {
      if (!(await storeStep(tx, guest, decision, version, input.admit))) throw new Error('a locked response changed');
      return { kind: 'next', step: decision.step };
    }
    if (decision.kind !== 'complete') return decision;
    // The stored row as the ORM's entity (its changes are flushed as such), or a new one.
    return complete(tx, guest, decision, row && tx.map(Submission, row), input);
  });
}

const answeredAlready = () => new AppError('conflict', 'This device has already answered this survey');

/**
 * The step's answer applied to a copy of `existing` (null: the device has none yet): checked, timed, and what follows
 * it. Reads what it needs (the link's order and location, the order's dishes) on `em`, writes nothing.
 */
async function decide(
  em: EntityManager,
  guest: GuestSurvey,
  input: StepInput,
  step: SurveyStep,
  link: SurveyLink,
  existing: Submission | null,
): Promise<Decision> {
  const business = guest.survey.business;
  let response = existing ? { ...existing } : null;
  let created = false;
  let changed = false;
  let targets: Awaited<ReturnType<typeof linkTargets>> | undefined;
  const targetsOfLink = async () => (targets ??= await linkTargets(em, business, link));
  // The order's dishes, for an items step: the response's order, else the link's (read once, only for such surveys).
  let dishes: OrderDish[] | undefined;
  const dishesOf = async () =>
    (dishes ??= await guestDishes(em, guest, response ? response.order : guest.steps.some((s) => s.type === 'items') ? (await targetsOfLink()).order : null));

  if (step.type !== 'info') {
    const checks = new Checks();
    const given = { ...input.answer, step: step.id };
    const dishIds = step.type === 'items' ? new Set((await dishesOf()).map((d) => d.menuItem)) : undefined;
    const [answer] = checkAnswers(checks, [given], [step], guest.metrics, { locationKnown: true, log: input.log, dishes: dishIds });
    if (step.type === 'location' && typeof given.value === 'string' && !guest.locations.some((l) => l.id === given.value)) {
      checks.fail('answers[0].value', `step ${step.id}: not one of the business's locations`);
    }
    if (checks.details.length) {
      const locationKnown = response ? response.location != null : (await targetsOfLink()).location != null;
      const hasDishes = (await dishesOf()).length > 0;
      return {
        kind: 'invalid',
        details: checks.details,
        shown: visibleSteps(guest, response?.answers ?? [], link, locationKnown, input.log, hasDishes),
        dishes: dishes ?? [],
      };
    }
    if (hasAnswer(given)) {
      // Timed for the funnel: from the page's first view (startedAt) or the previous answer, to this one.
      const now = Date.now();
      const since = Math.max(input.startedAt, ...(response?.answers ?? []).filter((a) => a.step !== step.id).map((a) => a.answeredAt ?? 0));
      const spentMs = now - since;
      Object.assign(answer, { answeredAt: now }, spentMs >= 0 && spentMs <= MAX_TIMED_MS ? { spentMs } : {});
      if (!response) {
        const { order, location } = await targetsOfLink();
        const at = new Date(now);
        response = {
          id: newId('submission'),
          business,
          survey: guest.survey.id,
          answers: [answer],
          guestId: null,
          sessionId: input.sessionId,
          metadata: { ...link.extra },
          order,
          location,
          status: 'partial',
          source: 'page',
          channel: link.channel ?? null,
          completedAt: null,
          createdAt: at,
          updatedAt: at,
        } as Submission;
        created = true;
      } else {
        response.answers = [...response.answers.filter((a) => a.step !== step.id), answer];
        response.updatedAt = new Date(now);
      }
      changed = true;
      if (step.type === 'location') response.location = given.value as string;
    }
  }

  // Before anything is stored (an info step, a skipped optional one), the link alone says whether the location is known.
  const locationKnown = response ? response.location != null : (await targetsOfLink()).location != null;
  const shown = visibleSteps(guest, response?.answers ?? [], link, locationKnown, input.log, (await dishesOf()).length > 0);
  const next = shown.find((s) => s.position > step.position);
  if (next) return { kind: 'next', step: next.id, response, created, changed };
  if (!response) return { kind: 'done', submission: null };

  // The last step: every shown required step must be answered; answers to steps the logic now hides are dropped.
  const shownIds = new Set(shown.map((s) => s.id));
  const answers = response.answers.filter((a) => shownIds.has(a.step));
  const answered = new Set(answers.map((a) => a.step));
  const missing = shown.find((s) => s.required && s.type !== 'info' && !answered.has(s.id));
  if (missing) return { kind: 'next', step: missing.id, response, created, changed };
  response.answers = answers;
  return { kind: 'complete', response, created, dishes: await dishesOf() };
}

/**
 * A step that does not complete the response, stored by statements (submission.repo.ts): a new response with its
 * `submission.created` event, or the answers on the version decided on. Answers false when that version is gone.
 */
async function storeStep(
  em: EntityManager,
  guest: GuestSurvey,
  d: Extract<Decision, { kind: 'next' }>,
  version: string | null,
  admit?: () => void | Promise<void>,
): Promise<boolean> {
  const response = d.response;
  if (!d.changed || !response) return true;
  if (d.created) {
    await admit?.();
    const event = eventOf(response);
    const written = await insertResponse(em, JSON.stringify(rowOf(response, ['business', 'survey', 'order', 'location'])), event);
    eventRecorded(em, { id: event.id, business: guest.survey.business, type: 'submission.created', fanoutPending: written.fanout_pending });
    if (!em.getTransactionContext()) remember(response, written.version);
    return true;
  }
  const stored = await updateResponse(em, {
    id: response.id,
    version: version!,
    answers: response.answers,
    location: response.location ?? null,
    updatedAt: response.updatedAt,
  });
  // In a transaction the version is its own until it commits: remembered by no one.
  if (stored && !em.getTransactionContext()) remember(response, stored);
  else forget(guest.survey.id, response.sessionId!);
  return !!stored;
}

/** A response's event written by a statement (submission.repo.ts): its id and its data, the response as events show it. */
const eventOf = (response: Submission) => ({ id: newId('event'), json: stringifyWithMillis({ object: submissionEventObject(response) }) });

/** The survey as what follows a completion reads it: its steps and metrics, and the order's dishes by menu item. */
const answered = (guest: GuestSurvey, d: Extract<Decision, { kind: 'complete' }>) => ({
  ...guest,
  dishes: new Map(d.dishes.map((dish) => [dish.menuItem, dish.name])),
});

/** What completing a response sets besides its answers: a response faster than a person reads is flagged, not refused. */
function completion(response: Submission, startedAt: number) {
  const completedAt = new Date();
  const metadata = Date.now() - startedAt < SUSPECT_UNDER_MS ? { ...response.metadata, suspectedSpam: 'true' } : response.metadata;
  return { status: 'completed' as const, completedAt, metadata };
}

/**
 * Whether a completion may be written alone: a stored response (a new one has its creation to record too) with no
 * order (whose feedback requests it settles, and whose one completed response per survey a transaction decides), that
 * opens no case (the followers' check: the cases module's).
 */
async function completesAlone(
  em: EntityManager,
  guest: GuestSurvey,
  d: Extract<Decision, { kind: 'complete' }>,
  completions: SubmissionFollowers,
): Promise<boolean> {
  if (d.created || d.response.order) return false;
  return !(await completions.check(em, d.response, answered(guest, d)));
}

/** The completion written alone, on the version decided on (submission.repo.ts); undefined when that version is gone. */
async function completeAlone(
  em: EntityManager,
  guest: GuestSurvey,
  d: Extract<Decision, { kind: 'complete' }>,
  version: string,
  startedAt: number,
): Promise<StepOutcome | undefined> {
  const completed: Submission = { ...d.response, ...completion(d.response, startedAt) };
  const event = eventOf(completed);
  // A text answer queues its analysis in the same statement (issue 52): one job row, no round trip more.
  const analyse = textAnswers(completed.answers, guest.steps).size > 0;
  const written = await completeResponse(
    em,
    {
      id: completed.id,
      version,
      answers: completed.answers,
      location: completed.location ?? null,
      metadata: completed.metadata,
      completedAt: completed.completedAt!,
      updatedAt: completed.updatedAt,
      analyse,
    },
    event,
  );
  if (!written) return undefined;
  eventRecorded(em, { id: event.id, business: guest.survey.business, type: 'submission.completed', fanoutPending: written.fanout_pending });
  if (analyse) wakeAfterCommit(em, TEXT_ANALYSIS_CHANNEL);
  return { kind: 'done', submission: presentSubmission(completed) };
}

/**
 * The response completed in `tx`, where its device's row is locked: its events, the order's feedback requests settled,
 * what follows a completion (the cases), flushed by the ORM with the response.
 */
async function complete(
  tx: EntityManager,
  guest: GuestSurvey,
  d: Extract<Decision, { kind: 'complete' }>,
  stored: Submission | null,
  input: StepInput,
): Promise<StepOutcome> {
  const business = guest.survey.business;
  let submission: Submission;
  if (stored) {
    submission = Object.assign(stored, { answers: d.response.answers, location: d.response.location, updatedAt: d.response.updatedAt });
  } else {
    await input.admit?.();
    submission = tx.create(Submission, d.response);
    recordEvent(tx, business, 'submission.created', submissionEventObject(submission));
  }
  Object.assign(submission, completion(submission, input.startedAt));
  recordEvent(tx, business, 'submission.completed', submissionEventObject(submission));
  // The guest answered for this order, whatever way they came: its feedback requests are done (issue 16).
  if (submission.order) await settleForOrder(tx, business, submission.order);
  await input.completions.step(tx, submission, answered(guest, d));
  if (textAnswers(submission.answers, guest.steps).size) await queueTextAnalysis(tx, business, submission.id);
  try {
    await tx.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new AppError('conflict', 'This order already has a completed response to this survey');
    throw err;
  }
  return { kind: 'done', submission: presentSubmission(submission) };
}
