import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, deleteRecorded, updateRecorded, type RecordedResource } from '../event/event.service.js';
import { findPage } from '../../kit/list.query.js';
import { definedOnly, findOwned } from '../../kit/resource.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue, Page } from '../../kit/list.args.js';
import { Survey } from './survey.entity.js';
import type { SurveyType } from './survey.type.js';
import type { CreateSurveyInput, UpdateSurveyInput } from './survey.inputs.js';

export function presentSurvey(survey: Survey): SurveyType {
  return {
    id: survey.id, object: 'survey', business: survey.business,
    name: survey.name,
    description: survey.description ?? null,
    status: survey.status,
    closingText: survey.closingText ?? null,
    reviewUrl: survey.reviewUrl ?? null,
    createdAt: survey.createdAt, updatedAt: survey.updatedAt,
  };
}

function isWebAddress(value: string) {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function check(input: Partial<CreateSurveyInput>, creating: boolean) {
  const checks = new Checks();
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 200 });
  checks.text('description', input.description, { max: 10_000 });
  checks.text('closingText', input.closingText, { max: 2000 });
  checks.text('reviewUrl', input.reviewUrl, { max: 2000 });
  if (typeof input.reviewUrl === 'string' && !isWebAddress(input.reviewUrl)) checks.fail('reviewUrl', 'must be an http or https address');
  checks.throwIfAny();
}

export const findSurvey = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Survey, { kind: 'survey', label: 'Survey', business, id, lock });

const recorded: RecordedResource<Survey, SurveyType> = { resource: 'survey', find: findSurvey, present: presentSurvey };

export function listSurveys(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>): Promise<Page<SurveyType>> {
  return findPage(em, Survey, { scope: { business }, args, present: presentSurvey });
}

export function createSurvey(em: EntityManager, business: string, input: CreateSurveyInput): Promise<SurveyType> {
  check(input, true);
  return em.transactional(async (tx) => {
    const survey = tx.create(Survey, {
      business,
      name: input.name.trim(),
      description: input.description ?? null,
      status: input.status ?? 'draft',
      closingText: input.closingText ?? null,
      reviewUrl: input.reviewUrl ?? null,
    });
    const presented = presentSurvey(survey);
    recordEvent(tx, business, 'survey.created', presented);
    return presented;
  });
}

export function updateSurvey(em: EntityManager, business: string, id: string, input: UpdateSurveyInput): Promise<SurveyType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (survey, tx) => {
    const changes = definedOnly(input);
    if (changes.name !== undefined) changes.name = changes.name.trim();
    tx.assign(survey, changes);
  });
}

/** Its steps go with it (foreign key cascade); submissions keep their answers and lose only the link. */
export function deleteSurvey(em: EntityManager, business: string, id: string): Promise<string> {
  return deleteRecorded(em, recorded, business, id);
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listSurveys, find: findSurvey, present: presentSurvey, create: createSurvey, update: updateSurvey, delete: deleteSurvey };
