import type { EntityManager } from '@mikro-orm/postgresql';
import { createRecorded, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { definedOnly } from '../../kit/resource/resource.js';
import { Checks } from '../../shared/validation.js';
import { GUEST_LANGUAGE_CODES } from '../../shared/guest-languages.js';
import { Survey } from './survey.entity.js';
import type { SurveyType } from './survey.type.js';
import type { CreateSurveyInput, UpdateSurveyInput } from './survey.inputs.js';
import { movingThemes } from '../theme-rollup/index.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

export const presentSurvey = ownedPresenter<Survey, SurveyType>('survey', {
  name: 'name',
  description: 'description?',
  status: 'status',
  closingText: 'closingText?',
  reviewUrl: 'reviewUrl?',
  languages: 'languages?',
});

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
  if (input.languages) {
    const unknown = input.languages.filter((code) => !(GUEST_LANGUAGE_CODES as string[]).includes(code));
    if (!input.languages.length) checks.fail('languages', 'must name at least one language, or be null for every one');
    else if (unknown.length) checks.fail('languages', `must be among ${GUEST_LANGUAGE_CODES.join(', ')} (not ${unknown.join(', ')})`);
    else if (new Set(input.languages).size !== input.languages.length) checks.fail('languages', 'names a language twice');
  }
  checks.throwIfAny();
}

const { find: findSurvey, list: listSurveys, recorded } = ownedResource(Survey, { kind: 'survey', label: 'Survey', present: presentSurvey });
export { findSurvey };

export function createSurvey(em: EntityManager, business: string, input: CreateSurveyInput): Promise<SurveyType> {
  check(input, true);
  return createRecorded(em, recorded, business, (tx) =>
    tx.create(Survey, {
      business,
      name: input.name.trim(),
      description: input.description ?? null,
      status: input.status ?? 'draft',
      closingText: input.closingText ?? null,
      reviewUrl: input.reviewUrl ?? null,
      languages: input.languages ?? null,
    }),
  );
}

function updateSurvey(em: EntityManager, business: string, id: string, input: UpdateSurveyInput): Promise<SurveyType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (survey, tx) => {
    const changes = definedOnly(input);
    if (changes.name !== undefined) changes.name = changes.name.trim();
    tx.assign(survey, changes);
  });
}

/** Its steps go with it (foreign key cascade); submissions keep their answers and lose only the link. */
function deleteSurvey(em: EntityManager, business: string, id: string): Promise<string> {
  // The submissions' answers move, in the theme rollups, to no survey.
  return deleteRecorded(em, recorded, business, id, (row, tx) =>
    movingThemes(tx, business, { survey: row.id }, async () => {
      tx.remove(row);
      await tx.flush();
    }),
  );
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listSurveys, find: findSurvey, present: presentSurvey, create: createSurvey, update: updateSurvey, delete: deleteSurvey };
