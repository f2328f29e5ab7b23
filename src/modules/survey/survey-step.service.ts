import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { isId } from '../../shared/id.js';
import { recordEvent, deleteRecorded, updateRecorded, type RecordedResource } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Metric } from '../metric/index.js';
import { SURVEY_PAGES_CHANNEL } from '../business/index.js';
import { announceAfterCommit } from '../../kit/signals/signals.js';
import { SurveyStep, type StepType } from './survey-step.entity.js';
import type { SurveyStepType } from './survey-step.type.js';
import { STEP_DEFAULT_ORDER, type CreateSurveyStepInput, type UpdateSurveyStepInput } from './survey-step.inputs.js';
import { findSurvey } from './survey.service.js';
import { shiftStepPositions } from './survey.repo.js';
import { checkLogic } from './survey-step-logic.rules.js';
import { patternProblem } from './survey-step-pattern.rules.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

export const presentStep = ownedPresenter<SurveyStep, SurveyStepType>('surveystep', {
  survey: 'survey',
  metricIds: 'metricIds',
  position: 'position',
  type: 'type',
  required: 'required',
  content: 'content',
  inputType: 'inputType?',
  validation: 'validation?',
  logic: 'logic?',
});

/**
 * What SurveyStep fields read of a step row besides their own column (propertiesFor): a page that shows only some
 * fields reads only their columns.
 */
export const STEP_FIELD_READS: Readonly<Record<string, readonly string[]>> = {
  __typename: [],
  object: [],
  metrics: ['type', 'metricIds'],
};

/** Events and REST show relations as ids: `metrics: {metrics: [ids]}`. */
const stepEventObject = (step: SurveyStep) => {
  const { metricIds, ...rest } = presentStep(step);
  return { ...rest, metrics: step.type === 'metrics' ? { metrics: metricIds } : null };
};

const VALIDATION_NUMBERS = ['minLength', 'maxLength', 'min', 'max'];
/** Every guest page reads and evaluates all of a survey's steps: a survey is bounded like a page. */
export const MAX_STEPS_PER_SURVEY = 100;
/** A metrics step is one screen of rating rows: at most this many (the GraphQL cost counts exactly this many). */
export const MAX_METRICS_PER_STEP = 10;

/**
 * How an `items` step asks about each dish (`content.scale`, default `5`): `thumbs` (up or down, stored as 5 or 1) or
 * `5` (1 to 5). Either way a dish rating is 1 to 5 (submission-answers.rules.ts).
 */
const ITEM_SCALES = ['thumbs', '5'];

/** Shape rules for the JSON parts; `type` is the step's type after the change. */
function checkContent(checks: Checks, type: StepType, input: Partial<CreateSurveyStepInput>) {
  const content = input.content;
  if (content) {
    for (const key of ['title', 'body']) {
      if (content[key] !== undefined && typeof content[key] !== 'string') checks.fail(`content.${key}`, 'must be a string');
    }
    if (type === 'items' && content.scale !== undefined && !ITEM_SCALES.includes(String(content.scale))) {
      checks.fail('content.scale', "must be 'thumbs' or '5'");
    }
    if (type === 'choice' || content.choices !== undefined) {
      const choices = content.choices;
      if (!Array.isArray(choices) || !choices.length || !choices.every((c) => typeof c === 'string' && c.trim())) {
        checks.fail('content.choices', 'must be a non-empty array of non-empty strings');
      }
    }
  }
  const validation = input.validation;
  if (validation) {
    for (const key of VALIDATION_NUMBERS) {
      if (validation[key] !== undefined && typeof validation[key] !== 'number') checks.fail(`validation.${key}`, 'must be a number');
    }
    const problem = validation.pattern !== undefined ? patternProblem(validation.pattern) : undefined;
    if (problem) checks.fail('validation.pattern', problem);
  }
  checks.text('inputType', input.inputType, { max: 50 });
  checkLogic(checks, input.logic);
}

/** Every id must be a metric of this business (another business's is NOT_FOUND); share-locked against deletion. */
async function checkMetrics(tx: EntityManager, business: string, type: StepType, ids: string[] | undefined, checks: Checks) {
  if (type !== 'metrics') {
    if (ids?.length) checks.fail('metrics', 'only steps of type metrics rate metrics');
    return [];
  }
  if (!ids?.length) {
    checks.fail('metrics.metrics', 'a metrics step needs at least one metric');
    return [];
  }
  if (new Set(ids).size !== ids.length) checks.fail('metrics.metrics', 'lists a metric twice');
  if (ids.length > MAX_METRICS_PER_STEP) checks.fail('metrics.metrics', `lists ${ids.length} metrics; a step rates at most ${MAX_METRICS_PER_STEP}`);
  checks.throwIfAny();
  const valid = ids.filter((id) => isId('metric', id));
  const found = valid.length ? await tx.find(Metric, { id: { $in: valid }, business }, { lockMode: LockMode.PESSIMISTIC_READ, fields: ['id'] }) : [];
  const missing = ids.filter((id) => !found.some((m) => m.id === id));
  if (missing.length) throw AppError.notFound('Metric', missing[0]);
  return ids;
}

/** Steps of one survey. Writers lock the survey, not the step: a move or a delete shifts the positions of all its steps. */
const recordedSteps = (survey: string): RecordedResource<SurveyStep, SurveyStepType> => ({
  resource: 'surveystep',
  find: async (tx, business, id, lock) => {
    await findSurvey(tx, business, survey, lock);
    return findOwned(tx, SurveyStep, { kind: 'surveyStep', label: 'Survey step', business, id, where: { survey } });
  },
  present: presentStep,
  eventObject: stepEventObject,
});

async function findStep(em: EntityManager, business: string, survey: string, id: string) {
  await findSurvey(em, business, survey);
  return findOwned(em, SurveyStep, { kind: 'surveyStep', label: 'Survey step', business, id, where: { survey } });
}

async function listSteps(em: EntityManager, business: string, survey: string, args: ListArgsValue<object, OrderByValue>) {
  await findSurvey(em, business, survey);
  return findPage<SurveyStep, SurveyStepType>(em, SurveyStep, {
    scope: { business, survey },
    args,
    present: presentStep,
    defaultOrder: STEP_DEFAULT_ORDER,
  });
}

const stepCount = (tx: EntityManager, business: string, survey: string) => tx.count(SurveyStep, { business, survey });

/** Positions move by whole ranges in one statement each; the survey row lock serialises writers of one survey. */
const shift = (tx: EntityManager, business: string, survey: string, by: 1 | -1, from: number, to = 2 ** 31 - 1) =>
  shiftStepPositions(tx, business, survey, by, from, to);

export function createStep(em: EntityManager, business: string, surveyId: string, input: CreateSurveyStepInput): Promise<SurveyStepType> {
  return em.transactional(async (tx) => {
    const survey = await findSurvey(tx, business, surveyId, true);
    const count = await stepCount(tx, business, survey.id);
    const checks = new Checks();
    const position = input.position ?? count;
    if (count >= MAX_STEPS_PER_SURVEY) checks.fail('steps', `the survey has ${count} steps, the most a survey may have (${MAX_STEPS_PER_SURVEY})`);
    else if (!Number.isInteger(position) || position < 0 || position > count) checks.fail('position', `must be from 0 to ${count}`);
    checkContent(checks, input.type, input);
    checks.throwIfAny();
    const metricIds = await checkMetrics(tx, business, input.type, input.metrics?.metrics, checks);
    checks.throwIfAny();
    if (position < count) await shift(tx, business, survey.id, 1, position);
    const step = tx.create(SurveyStep, {
      business,
      survey: survey.id,
      position,
      type: input.type,
      required: input.required ?? false,
      content: input.content ?? {},
      inputType: input.inputType ?? null,
      validation: input.validation ?? null,
      logic: input.logic ?? null,
      metricIds,
    });
    recordEvent(tx, business, 'surveystep.created', stepEventObject(step));
    return presentStep(step);
  });
}

function updateStep(em: EntityManager, business: string, surveyId: string, id: string, input: UpdateSurveyStepInput): Promise<SurveyStepType> {
  return updateRecorded(em, recordedSteps(surveyId), business, id, async (step, tx) => {
    const survey = step.survey;
    const checks = new Checks();
    const type = input.type ?? step.type;
    checkContent(checks, type, { ...input, content: input.content ?? (input.type ? step.content : undefined) });
    const count = await stepCount(tx, business, survey);
    if (input.position != null && (!Number.isInteger(input.position) || input.position < 0 || input.position >= count)) {
      checks.fail('position', `must be from 0 to ${count - 1}`);
    }
    checks.throwIfAny();
    const metricsChange = input.metrics !== undefined || input.type !== undefined;
    const metricIds = metricsChange
      ? await checkMetrics(tx, business, type, input.metrics?.metrics ?? (type === 'metrics' ? step.metricIds : undefined), checks)
      : step.metricIds;
    checks.throwIfAny();

    if (input.position != null && input.position !== step.position) {
      const from = step.position;
      const to = input.position;
      if (to < from) await shift(tx, business, survey, 1, to, from - 1);
      else await shift(tx, business, survey, -1, from + 1, to);
      step.position = to;
    }
    step.type = type;
    step.metricIds = metricIds;
    if (input.required != null) step.required = input.required;
    if (input.content != null) step.content = input.content;
    if (input.inputType !== undefined) step.inputType = input.inputType;
    if (input.validation !== undefined) step.validation = input.validation;
    if (input.logic !== undefined) step.logic = input.logic;
  });
}

function deleteStep(em: EntityManager, business: string, surveyId: string, id: string): Promise<string> {
  return deleteRecorded(em, recordedSteps(surveyId), business, id, async (step, tx) => {
    await tx.nativeDelete(SurveyStep, { business, id: step.id });
    await shift(tx, business, step.survey, -1, step.position + 1);
    // Statements of their own, not the ORM's flush: the survey pages' memos are told here.
    announceAfterCommit(tx, SURVEY_PAGES_CHANNEL, '');
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listSteps, find: findStep, present: presentStep, create: createStep, update: updateStep, delete: deleteStep };
