import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Business } from '../business/index.js';
import { normaliseEmail, normalisePhone } from '../order/index.js';
import { contactHash } from './feedback-flow.rules.js';
import type { FeedbackRequestType, FeedbackSuppressionType } from './feedback-flow.type.js';
import { FeedbackRequest } from './feedback-request.entity.js';
import { FeedbackSuppression } from './feedback-suppression.entity.js';
import { presentRequest, type RequestRecord } from './feedback-request.presenter.js';
import {
  businessesAskingPhone,
  businessesTextingPhoneSince,
  businessOfToken,
  cancelScheduledOfFlow,
  contactOfToken,
  earlierRequestExists,
  insertSuppression,
  linkTarget,
  openSentRequest,
  optedOutChannels,
  scheduledForContact,
  settleRequestsOfOrder,
  suppressScheduled,
} from './flow.repo.js';

const findRequest = (em: EntityManager, business: string, id: string) =>
  findOwned(em, FeedbackRequest, { kind: 'feedbackRequest', label: 'Feedback request', business, id });

function listRequests(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<FeedbackRequest, FeedbackRequestType>(em, FeedbackRequest, { scope: { business }, args, present: presentRequest });
}

/** A row of feedback_request as raw SQL returns it. */
export function recordOfRow(row: Record<string, unknown>): RequestRecord {
  const date = (v: unknown) => (v == null ? null : new Date(v as string));
  return {
    id: row.id as string,
    business: row.business_id as string,
    flow: (row.flow_id as string | null) ?? null,
    order: row.order_id as string,
    survey: row.survey_id as string,
    trigger: row.trigger as string,
    status: row.status as RequestRecord['status'],
    reason: (row.reason as string | null) ?? null,
    error: (row.error as string | null) ?? null,
    channel: (row.channel as string | null) ?? null,
    sendAt: date(row.send_at)!,
    sentAt: date(row.sent_at),
    remindedAt: date(row.reminded_at),
    openedAt: date(row.opened_at),
    completedAt: date(row.completed_at),
    expiresAt: date(row.expires_at)!,
    createdAt: date(row.created_at)!,
    updatedAt: date(row.updated_at)!,
  };
}

/** Records `feedbackrequest.<status>` for each changed row, in the caller's transaction. */
function recordChanges(em: EntityManager, rows: object[]) {
  for (const row of rows) {
    const record = recordOfRow(row as Record<string, unknown>);
    recordEvent(em, record.business, `feedbackrequest.${record.status}`, presentRequest(record));
  }
}

/** Cancels what is still scheduled (a flow deleted or disabled): it will never be due again. */
export async function cancelScheduled(em: EntityManager, business: string, where: { flow: string }, reason: string) {
  recordChanges(em, await cancelScheduledOfFlow(em, business, where.flow, reason));
}

/**
 * The guest answered the survey for this order (by the request's link, a QR code or the API): a sent or opened
 * request is completed, a scheduled one cancelled, and no reminder or expiry is due any more. Same transaction as
 * the answer.
 */
export async function settleForOrder(em: EntityManager, business: string, order: string) {
  const rows = await settleRequestsOfOrder(em, business, order);
  recordChanges(em, rows);
}

/**
 * Whether an earlier request of this business to the same customer (e-mail or phone) within `days` stands in the
 * way: the earliest one wins; suppressed, failed and cancelled ones do not count.
 */
export async function throttledBy(
  em: EntityManager,
  business: string,
  q: { emailHash: string | null; phoneHash: string | null; before: Date; days: number; excludeOrder: string; beforeId?: string },
): Promise<boolean> {
  if (!q.emailHash && !q.phoneHash) return false;
  return earlierRequestExists(em, business, {
    emailHash: q.emailHash,
    phoneHash: q.phoneHash,
    since: new Date(q.before.getTime() - q.days * 86_400_000),
    before: q.before,
    excludeOrder: q.excludeOrder,
    beforeId: q.beforeId ?? 'fr_~',
  });
}

/** The flow's channels the customer can be reached on, in order, and why none when none. */
export async function suppressionOf(
  em: EntityManager,
  business: string,
  channels: string[],
  hashes: { email: string | null; sms: string | null },
): Promise<{ channel: string | null; eligible: string[]; reason: string | null }> {
  const withContact = channels.filter((c) => hashes[c as 'email' | 'sms']);
  if (!withContact.length) return { channel: null, eligible: [], reason: 'no_contact' };
  const out = new Set(await optedOutChannels(em, business, hashes));
  const eligible = withContact.filter((c) => !out.has(c));
  return { channel: eligible[0] ?? null, eligible, reason: eligible.length ? null : 'opted_out' };
}

async function suppress(em: EntityManager, business: string, channel: 'email' | 'sms', hash: string, source: string): Promise<FeedbackSuppressionType> {
  await insertSuppression(em, { id: new FeedbackSuppression().id, business, channel, hash, source });
  await settleOptedOut(em, business, channel, hash);
  const row = (await em.findOne(FeedbackSuppression, { business, channel, hash }, { refresh: true }))!;
  return { id: row.id, object: 'feedbacksuppression', channel: row.channel, source: row.source, createdAt: row.createdAt };
}

/**
 * An opt-out takes effect on what is already scheduled for that contact, whichever door it came by (the unsubscribe
 * link, an inbound STOP, the API): a request that can no longer reach the guest on any of its flow's channels ends
 * `suppressed` now (and is no longer due), rather than waiting for its send time. One that still can (an e-mail
 * opted out, a phone not) stays scheduled; the send-time check picks the channel left. A request a worker is sending
 * at this moment is left to that worker.
 */
async function settleOptedOut(em: EntityManager, business: string, channel: 'email' | 'sms', hash: string) {
  const scheduled = await scheduledForContact(em, business, channel, hash);
  for (const r of scheduled) {
    const reach = await suppressionOf(em, business, r.channels ?? [], { email: r.email_hash, sms: r.phone_hash });
    if (!reach.reason) continue;
    recordChanges(em, await suppressScheduled(em, business, r.id, reach.reason));
  }
}

/** The API's opt-out: an e-mail address and/or a phone number that must not be asked again by this business. */
export async function suppressContact(
  em: EntityManager,
  business: string,
  input: { email?: string | null; phone?: string | null },
): Promise<FeedbackSuppressionType[]> {
  const checks = new Checks();
  const owner = await em.findOne(Business, { id: business });
  const email = input.email != null ? normaliseEmail(input.email) : null;
  const phone = input.phone != null ? normalisePhone(input.phone, owner?.country) : null;
  if (input.email != null && !email) checks.fail('email', 'is not a valid e-mail address');
  if (input.phone != null && !phone) checks.fail('phone', 'is not a valid phone number');
  if (input.email == null && input.phone == null) checks.fail('email', 'give an email, a phone, or both');
  checks.throwIfAny();
  return em.transactional(async (tx) => {
    const out: FeedbackSuppressionType[] = [];
    if (email) out.push(await suppress(tx, business, 'email', contactHash('email', email)!, 'api'));
    if (phone) out.push(await suppress(tx, business, 'sms', contactHash('sms', phone)!, 'api'));
    return out;
  });
}

/** What the link {SURVEY_URL}/r/{token} leads to. */
export interface OpenedLink {
  business: string;
  survey: string;
  channel: string | null;
  externalOrderId: string;
  externalLocationId: string | null;
  /** `<key>.<value>` of a location whose metadata holds the order's externalLocationId, for `location:metadata`. */
  locationMetadata: string | null;
}

/** The guest followed the link: a sent request becomes opened (once); answers where the link leads, or null. */
export async function openRequest(em: EntityManager, token: string): Promise<OpenedLink | null> {
  if (!/^[A-Za-z0-9_-]{10,40}$/.test(token)) return null;
  return em.transactional(async (tx) => {
    recordChanges(tx, await openSentRequest(tx, token));
    const row = await linkTarget(tx, token);
    if (!row) return null;
    return {
      business: row.business_id,
      survey: row.survey_id,
      channel: row.channel ?? null,
      externalOrderId: row.external_order_id,
      externalLocationId: row.external_location_id ?? null,
      locationMetadata: row.location_metadata ?? null,
    };
  });
}

/** The business behind a link, for its unsubscribe page (which changes nothing until its button is pressed). */
export async function businessOfLink(em: EntityManager, token: string): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{10,40}$/.test(token)) return null;
  return (await businessOfToken(em, token))?.business_id ?? null;
}

/**
 * The unsubscribe link (and its one-click POST): the request's contact on its channel joins the business's opt-out
 * list. The business's id, or null when the link is unknown.
 */
export async function unsubscribeByToken(em: EntityManager, token: string): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{10,40}$/.test(token)) return null;
  return em.transactional(async (tx) => {
    const r = await contactOfToken(tx, token);
    if (!r) return null;
    const channel = (r.channel ?? (r.email_hash ? 'email' : 'sms')) as 'email' | 'sms';
    const hash = channel === 'email' ? r.email_hash : r.phone_hash;
    if (hash) await suppress(tx, r.business_id, channel, hash, 'unsubscribe');
    return r.business_id;
  });
}

/**
 * An inbound STOP from a phone: every business that has asked that number stops asking it by SMS, and so do `also`
 * (those whose case replies texted it: the inbound door knows them, this module does not).
 */
export async function stopFromPhone(em: EntityManager, phone: string, also: readonly string[] = []): Promise<number> {
  const normal = normalisePhone(phone, null);
  if (!normal) throw AppError.validation([{ field: 'from', message: 'must be a phone number in E.164 (+923001234567)' }]);
  const hash = contactHash('sms', normal)!;
  return em.transactional(async (tx) => {
    const businesses = [...new Set([...(await businessesAskingPhone(tx, hash)), ...also])];
    for (const business of businesses) await suppress(tx, business, 'sms', hash, 'stop');
    return businesses.length;
  });
}

/** The businesses whose feedback requests texted this number (E.164) since `since`: writers an inbound SMS may answer. */
export function businessesTextingSince(em: EntityManager, phone: string, since: Date): Promise<string[]> {
  return businessesTextingPhoneSince(em, contactHash('sms', phone)!, since);
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listRequests, find: findRequest, present: presentRequest };
