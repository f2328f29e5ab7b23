import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, deleteRecorded, updateRecorded, type RecordedResource } from '../event/index.js';
import { settleForOrder } from '../flow/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Metric } from '../metric/index.js';
import { Order, findOrder, orderDishes } from '../order/index.js';
import { findLocation, findLocationByMetadata } from '../location/index.js';
import { SurveyStep, findSurvey } from '../survey/index.js';
import type { WriteContext } from '../../kit/graphql/context.js';
import { Submission } from './submission.entity.js';
import type { SubmissionType } from './submission.type.js';
import type { AnswerInput, CreateSubmissionInput, UpdateSubmissionInput } from './submission.inputs.js';
import { checkAnswers, textAnswers, textsDiffer } from './submission-answers.rules.js';
import { queueTextAnalysis } from '../text/index.js';
import { isSentiment, isThemeName, SENTIMENT_LABELS, THEME_NAME_RULE } from '../../shared/themes.js';
import { themeCondition } from './submission.repo.js';
import { movingThemes, withdrawThemes } from '../theme-rollup/index.js';

export function presentSubmission(s: Submission): SubmissionType {
  return {
    id: s.id,
    object: 'submission',
    business: s.business,
    surveyId: s.survey ?? null,
    orderId: s.order ?? null,
    locationId: s.location ?? null,
    answers: s.answers.map((a) => ({ step: a.step, value: a.value ?? null, ratings: a.ratings ?? null, items: a.items ?? null })),
    guestId: s.guestId ?? null,
    sessionId: s.sessionId ?? null,
    metadata: s.metadata,
    status: s.status,
    completedAt: s.completedAt ?? null,
    source: s.source,
    channel: s.channel ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** Events and REST show relations as ids. */
export const submissionEventObject = (s: Submission) => {
  const { surveyId, orderId, locationId, ...rest } = presentSubmission(s);
  return { ...rest, survey: surveyId, order: orderId, location: locationId };
};

async function findSubmission(em: EntityManager, business: string, survey: string, id: string, lock = false) {
  await findSurvey(em, business, survey);
  return findOwned(em, Submission, { kind: 'submission', label: 'Submission', business, id, lock, where: { survey } });
}

async function listSubmissions(em: EntityManager, business: string, survey: string, args: ListArgsValue<object, OrderByValue>) {
  const { theme, ...where } = (args.where ?? {}) as { theme?: SubmissionThemeFilterValue | null };
  if (theme != null) checkThemeFilter(theme);
  await findSurvey(em, business, survey);
  return findPage<Submission, SubmissionType>(em, Submission, {
    scope: { business, survey },
    args: { ...args, where },
    conditions: theme != null ? [themeCondition(business, theme)] : [],
    present: presentSubmission,
  });
}

interface SubmissionThemeFilterValue {
  theme: string;
  sentiment?: string | null;
}

/** The feedback list's theme filter: a theme's name (the rule every theme name follows) and a known sentiment. */
function checkThemeFilter(filter: SubmissionThemeFilterValue) {
  const checks = new Checks();
  if (!isThemeName(filter.theme))
    checks.fail('where.theme.theme', `must be a theme name such as cleanliness (${THEME_NAME_RULE}), not ${JSON.stringify(filter.theme)}`);
  if (filter.sentiment != null && !isSentiment(filter.sentiment)) {
    checks.fail('where.theme.sentiment', `must be one of ${SENTIMENT_LABELS.join(', ')}, not ${JSON.stringify(filter.sentiment)}`);
  }
  checks.throwIfAny();
}

/**
 * The answers checked against the survey's steps (checkAnswers), with the steps and metrics they were read with, and
 * the dishes of the linked order (by menu item id: their names) when the survey has an items step.
 */
async function validatedAnswers(
  em: EntityManager,
  checks: Checks,
  business: string,
  survey: string,
  answers: AnswerInput[],
  locationKnown: boolean,
  order: string | null,
) {
  const steps = await em.find(SurveyStep, { business, survey }, { orderBy: { position: 'asc' } });
  const metricIds = [...new Set(steps.flatMap((s) => s.metricIds))];
  const metrics = new Map((metricIds.length ? await em.find(Metric, { business, id: { $in: metricIds } }) : []).map((m) => [m.id, m]));
  const dishes = new Map(order && steps.some((s) => s.type === 'items') ? (await orderDishes(em, business, order)).map((d) => [d.menuItem, d.name]) : []);
  return { answers: checkAnswers(checks, answers, steps, metrics, { locationKnown, dishes: new Set(dishes.keys()) }), survey: { steps, metrics, dishes } };
}

/**
 * Spec 4.9's survey-link lookup. `location:metadata` (`<key>.<value>`, split at the first dot) picks the location.
 * The order is found by customOrderId within customLocationId, falling back to the metadata value (which works when
 * it equals the externalLocationId the webhook got). With neither, the order sent without a location id is used,
 * else the business's only order with that id; an ambiguous or unknown order leaves the submission unlinked, since
 * the customer's feedback must not be lost for it.
 */
export type LinkInput = Pick<CreateSubmissionInput, 'custom' | 'locationMetadata' | 'order' | 'location'>;

export async function resolveLink(em: EntityManager, business: string, input: LinkInput, checks: Checks) {
  let location: string | null = null;
  let metadataValue: string | null = null;
  if (input.location != null) {
    location = (await findLocation(em, business, input.location)).id;
  }
  if (input.locationMetadata != null) {
    const raw = input.locationMetadata;
    const dot = raw.indexOf('.');
    if (dot <= 0 || dot === raw.length - 1) {
      checks.fail('locationMetadata', "must be '<metadata key>.<location value>'");
    } else {
      metadataValue = raw.slice(dot + 1);
      location ??= (await findLocationByMetadata(em, business, raw.slice(0, dot), metadataValue))?.id ?? null;
    }
  }

  let order: string | null = null;
  if (input.order != null) {
    order = (await findOrder(em, business, input.order)).id;
  } else if (input.custom?.customOrderId) {
    const externalOrderId = input.custom.customOrderId;
    const scopes = [...new Set([input.custom.customLocationId, metadataValue].filter((v): v is string => !!v))];
    if (scopes.length) {
      const candidates = await em.find(Order, { business, externalOrderId, externalLocationId: { $in: scopes } });
      order = scopes.map((scope) => candidates.find((o) => o.externalLocationId === scope)).find(Boolean)?.id ?? null;
    } else {
      const candidates = await em.find(Order, { business, externalOrderId }, { limit: 2, orderBy: { externalLocationId: 'asc nulls first' } as never });
      order = candidates.find((o) => o.externalLocationId == null)?.id ?? (candidates.length === 1 ? candidates[0].id : null);
    }
  }
  return { location, order };
}

function checkCommon(checks: Checks, input: Partial<CreateSubmissionInput>) {
  checks.text('guestId', input.guestId, { max: 200 });
  checks.text('sessionId', input.sessionId, { max: 200 });
  if (input.answers && input.answers.length > 500) checks.fail('answers', 'at most 500 answers');
}

function createSubmission(em: EntityManager, business: string, surveyId: string, input: CreateSubmissionInput, ctx: WriteContext): Promise<SubmissionType> {
  return em.transactional(async (tx) => {
    const survey = await findSurvey(tx, business, surveyId);
    const checks = new Checks();
    checkCommon(checks, input);
    const link = await resolveLink(tx, business, input, checks);
    const { answers, survey: answered } = await validatedAnswers(tx, checks, business, survey.id, input.answers, link.location != null, link.order);
    checks.throwIfAny();
    const submission = tx.create(Submission, {
      business,
      survey: survey.id,
      answers,
      guestId: input.guestId ?? null,
      sessionId: input.sessionId ?? null,
      metadata: input.metadata ?? {},
      order: link.order,
      location: link.location,
      completedAt: new Date(),
    });
    recordEvent(tx, business, 'submission.created', submissionEventObject(submission));
    // An answer for the order completes its feedback requests (issue 16).
    if (link.order) await settleForOrder(tx, business, link.order);
    await ctx.services.completions.step(tx, submission, answered);
    // Its text answers are read by the workers (issue 52): a job row in this transaction.
    if (textAnswers(answers, answered.steps).size) await queueTextAnalysis(tx, business, submission.id);
    return presentSubmission(submission);
  });
}

const recordedSubmissions = (survey: string): RecordedResource<Submission, SubmissionType> => ({
  resource: 'submission',
  find: (tx, business, id, lock) => findSubmission(tx, business, survey, id, lock),
  present: presentSubmission,
  eventObject: submissionEventObject,
});

function updateSubmission(em: EntityManager, business: string, surveyId: string, id: string, input: UpdateSubmissionInput): Promise<SubmissionType> {
  return updateRecorded(em, recordedSubmissions(surveyId), business, id, async (submission, tx) => {
    const checks = new Checks();
    checkCommon(checks, input);
    if (input.order !== undefined) submission.order = input.order === null ? null : (await findOrder(tx, business, input.order)).id;
    const location =
      input.location === undefined ? (submission.location ?? null) : input.location === null ? null : (await findLocation(tx, business, input.location)).id;
    if (input.answers) {
      const checked = await validatedAnswers(tx, checks, business, surveyId, input.answers, location != null, submission.order ?? null);
      // A text answer changed, added or removed: read again (the job drops the analysis of one removed).
      if (!checks.details.length && textsDiffer(textAnswers(submission.answers, checked.survey.steps), textAnswers(checked.answers, checked.survey.steps))) {
        await queueTextAnalysis(tx, business, submission.id);
      }
      submission.answers = checked.answers;
    }
    checks.throwIfAny();
    if (input.guestId !== undefined) submission.guestId = input.guestId;
    if (input.sessionId !== undefined) submission.sessionId = input.sessionId;
    if (input.metadata != null) submission.metadata = input.metadata;
    // Another location may be another day too (its time zone): the theme rollups move its answers with it.
    if (location !== (submission.location ?? null)) {
      await movingThemes(tx, business, { submission: submission.id }, async () => {
        submission.location = location;
        await tx.flush();
      });
    }
  });
}

function deleteSubmission(em: EntityManager, business: string, surveyId: string, id: string): Promise<string> {
  return deleteRecorded(em, recordedSubmissions(surveyId), business, id, async (submission, tx) => {
    // Its analyses go with it (cascade): what they counted in the theme rollups goes first.
    await withdrawThemes(tx, business, submission.id);
    tx.remove(submission);
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = {
  list: listSubmissions,
  find: findSubmission,
  present: presentSubmission,
  create: createSubmission,
  update: updateSubmission,
  delete: deleteSubmission,
};
