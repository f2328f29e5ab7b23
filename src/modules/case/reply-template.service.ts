import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, deleteRecorded, updateRecorded, type RecordedResource } from '../event/event.service.js';
import { findPage } from '../../kit/list.query.js';
import { findOwned } from '../../kit/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { Checks } from '../../shared/validation.js';
import { ReplyTemplate } from './reply-template.entity.js';
import type { ReplyTemplateType } from './reply-template.type.js';
import type { CreateReplyTemplateInput, UpdateReplyTemplateInput } from './reply-template.inputs.js';

export function presentReplyTemplate(t: ReplyTemplate): ReplyTemplateType {
  return { id: t.id, object: 'replytemplate', business: t.business, name: t.name, body: t.body, createdAt: t.createdAt, updatedAt: t.updatedAt };
}

function check(input: Partial<CreateReplyTemplateInput>, creating: boolean) {
  const checks = new Checks();
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 100 });
  if (creating || input.body !== undefined) checks.text('body', input.body, { required: true, max: 2000 });
  checks.throwIfAny();
}

export const findReplyTemplate = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, ReplyTemplate, { kind: 'replyTemplate', label: 'Reply template', business, id, lock });

const recorded: RecordedResource<ReplyTemplate, ReplyTemplateType> = { resource: 'replytemplate', find: findReplyTemplate, present: presentReplyTemplate };

export function listReplyTemplates(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<ReplyTemplate, ReplyTemplateType>(em, ReplyTemplate, { scope: { business }, args, present: presentReplyTemplate });
}

export function createReplyTemplate(em: EntityManager, business: string, input: CreateReplyTemplateInput): Promise<ReplyTemplateType> {
  check(input, true);
  return em.transactional(async (tx) => {
    const presented = presentReplyTemplate(tx.create(ReplyTemplate, { business, name: input.name.trim(), body: input.body.trim() }));
    recordEvent(tx, business, 'replytemplate.created', presented);
    return presented;
  });
}

export function updateReplyTemplate(em: EntityManager, business: string, id: string, input: UpdateReplyTemplateInput): Promise<ReplyTemplateType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (t) => {
    if (input.name != null) t.name = input.name.trim();
    if (input.body != null) t.body = input.body.trim();
  });
}

export const deleteReplyTemplate = (em: EntityManager, business: string, id: string) => deleteRecorded(em, recorded, business, id);

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver). */
export const crud = { list: listReplyTemplates, find: findReplyTemplate, present: presentReplyTemplate, create: createReplyTemplate, update: updateReplyTemplate, delete: deleteReplyTemplate };
