import type { EntityManager } from '@mikro-orm/postgresql';
import { createRecorded, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { Checks } from '../../shared/validation.js';
import { ReplyTemplate } from './reply-template.entity.js';
import type { ReplyTemplateType } from './reply-template.type.js';
import type { CreateReplyTemplateInput, UpdateReplyTemplateInput } from './reply-template.inputs.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

const presentReplyTemplate: (record: ReplyTemplate) => ReplyTemplateType = ownedPresenter('replytemplate', ['name', 'body']);

function check(input: Partial<CreateReplyTemplateInput>, creating: boolean) {
  const checks = new Checks();
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 100 });
  if (creating || input.body !== undefined) checks.text('body', input.body, { required: true, max: 2000 });
  checks.throwIfAny();
}

const { find, list, recorded } = ownedResource(ReplyTemplate, { kind: 'replyTemplate', label: 'Reply template', present: presentReplyTemplate });

function createReplyTemplate(em: EntityManager, business: string, input: CreateReplyTemplateInput): Promise<ReplyTemplateType> {
  check(input, true);
  return createRecorded(em, recorded, business, (tx) => tx.create(ReplyTemplate, { business, name: input.name.trim(), body: input.body.trim() }));
}

function updateReplyTemplate(em: EntityManager, business: string, id: string, input: UpdateReplyTemplateInput): Promise<ReplyTemplateType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (t) => {
    if (input.name != null) t.name = input.name.trim();
    if (input.body != null) t.body = input.body.trim();
  });
}

const deleteReplyTemplate = (em: EntityManager, business: string, id: string) => deleteRecorded(em, recorded, business, id);

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver). */
export const crud = {
  list,
  find,
  present: presentReplyTemplate,
  create: createReplyTemplate,
  update: updateReplyTemplate,
  delete: deleteReplyTemplate,
};
