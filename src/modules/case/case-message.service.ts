import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { findOwned } from '../../kit/resource/resource.js';
import { findPage } from '../../kit/list/list.query.js';
import { SortOrder, type ListArgsValue, type OrderByValue } from '../../kit/list/list.args.js';
import { recordEvent } from '../event/index.js';
import { contactHash, suppressionOf } from '../flow/index.js';
import { caseEventObject, findCase } from './case.service.js';
import type { GuestCase } from './case.entity.js';
import { CaseMessage, MESSAGE_CHANNELS, type MessageChannel } from './case-message.entity.js';
import type { CaseMessageType } from './case-message.type.js';
import type { CreateCaseMessageInput } from './case-message.inputs.js';
import { wakeCaseWorkers } from './case.repo.js';
import { MAX_MESSAGE_BODY } from './case-message.rules.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';
import type { WriteContext } from '../../kit/graphql/context.js';

type MessageRow = Pick<CaseMessage, 'id' | 'business' | 'case' | 'direction' | 'channel' | 'body' | 'status' | 'author' | 'error' | 'createdAt' | 'updatedAt'>;

/**
 * Plain rows (findPage) and entities alike; the job's lease, attempts and address stay inside. Its error is shown: a
 * reply that failed must say why (the senders' errors never name the guest's address).
 */
export const presentMessage: (record: MessageRow) => CaseMessageType = ownedPresenter('casemessage', [
  'case',
  'direction',
  'channel',
  'body',
  'status',
  'author',
  'error',
]);

/** A thread reads from its first message: oldest first unless orderBy says otherwise. */
const THREAD_ORDER = [{ field: 'createdAt', order: SortOrder.asc }];

async function listMessages(em: EntityManager, business: string, caseId: string, args: ListArgsValue<object, OrderByValue>) {
  await findCase(em, business, caseId);
  return findPage<CaseMessage, CaseMessageType>(em, CaseMessage, {
    scope: { business, case: caseId },
    args,
    present: presentMessage,
    defaultOrder: THREAD_ORDER,
  });
}

async function findMessage(em: EntityManager, business: string, caseId: string, id: string) {
  await findCase(em, business, caseId);
  return findOwned(em, CaseMessage, { kind: 'caseMessage', label: 'Case message', business, id, where: { case: caseId } });
}

const CHANNEL_WORDS = { email: 'e-mail', sms: 'SMS' } as const;

/** The channel asked for, else e-mail when the guest left an address, else SMS; and the address on it. */
function reachOf(c: GuestCase, asked: string | null | undefined): { channel: MessageChannel; address: string } {
  if (asked != null && !MESSAGE_CHANNELS.includes(asked as MessageChannel))
    throw AppError.validation([{ field: 'channel', message: `must be one of ${MESSAGE_CHANNELS.join(', ')}` }]);
  const channel = (asked as MessageChannel | null | undefined) ?? (c.guestEmail ? 'email' : c.guestPhone ? 'sms' : null);
  if (!channel) throw new AppError('conflict', `Case ${c.id}: the guest left no e-mail address and no phone number, so there is no way to reply`);
  const address = channel === 'email' ? c.guestEmail : c.guestPhone;
  if (!address)
    throw new AppError(
      'conflict',
      `Case ${c.id}: the guest left no ${channel === 'email' ? 'e-mail address' : 'phone number'}; reply by ${channel === 'email' ? 'SMS' : 'e-mail'} instead`,
    );
  return { channel, address };
}

/**
 * The restaurant's reply to a case's guest, inside the caller's transaction `tx` (the offers' `send: true` too):
 * checked, refused when the guest opted out of that channel (409, nothing written) or a sending budget is spent (the
 * business's of the day, or the guest's: 429 naming it, nothing written), queued as its own job (sent after the
 * commit by the case workers), the first reply stamping `firstReplyAt` and moving an open case to `replied`.
 * `c` should be locked by the caller (findCase with lock) when replies may race; its author is `by`'s user, if any.
 */
export async function queueCaseMessage(
  tx: EntityManager,
  c: GuestCase,
  input: { body: string; channel?: string | null },
  by: WriteContext,
): Promise<CaseMessage> {
  const author = by.auth?.userId ?? null;
  const checks = new Checks();
  checks.text('body', input.body, { required: true, max: MAX_MESSAGE_BODY.email });
  checks.text('channel', input.channel);
  checks.throwIfAny();
  const { channel, address } = reachOf(c, input.channel);
  if (input.body.length > MAX_MESSAGE_BODY[channel])
    throw AppError.validation([{ field: 'body', message: `must be at most ${MAX_MESSAGE_BODY[channel]} characters by ${CHANNEL_WORDS[channel]}` }]);
  const reach = await suppressionOf(tx, c.business, [channel], { email: contactHash('email', c.guestEmail), sms: contactHash('sms', c.guestPhone) });
  if (reach.reason === 'opted_out')
    throw new AppError('conflict', `The guest has opted out of ${CHANNEL_WORDS[channel]} from this business: the reply was not sent`);
  await by.services.sending.charge(tx, { business: c.business, channel, kind: 'reply', guest: address });
  const now = new Date();
  const message = tx.create(CaseMessage, {
    business: c.business,
    case: c.id,
    direction: 'out',
    channel,
    body: input.body,
    status: 'queued',
    author,
    address,
    dueAt: now,
    createdAt: now,
    updatedAt: now,
  });
  recordEvent(tx, c.business, 'casemessage.created', presentMessage(message));
  if (!c.firstReplyAt || c.status === 'open') {
    c.firstReplyAt ??= now;
    if (c.status === 'open') c.status = 'replied';
    c.updatedAt = now;
    recordEvent(tx, c.business, 'case.updated', caseEventObject(c));
  }
  // Delivered at commit: the case workers start on it at once rather than at their next poll.
  await wakeCaseWorkers(tx);
  return message;
}

/** The CRUD create (POST …/cases/{case}/messages, createCaseMessage), in its own transaction. */
function createCaseMessage(
  em: EntityManager,
  business: string,
  caseId: string,
  input: CreateCaseMessageInput | { body: string; channel?: string | null },
  ctx: WriteContext,
): Promise<CaseMessageType> {
  return em.transactional(async (tx) => {
    const c = await findCase(tx, business, caseId, true);
    return presentMessage(await queueCaseMessage(tx, c, input, ctx));
  });
}

/** The operations by role, for the GraphQL resolver (NestedCrudResolver under `case`): messages are not edited nor deleted. */
export const crud = { list: listMessages, find: findMessage, present: presentMessage, create: createCaseMessage };
