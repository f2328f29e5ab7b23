import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../event/event.service.js';
import { findPage } from '../../kit/list.query.js';
import { findOwned } from '../../kit/resource.js';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { Business } from '../business/business.entity.js';
import { normaliseEmail, normalisePhone } from '../order/order.normalise.js';
import { orderLocationSql } from '../location/location.service.js';
import { contactHash } from './feedback-flow.rules.js';
import type { FeedbackRequestType, FeedbackSuppressionType } from './feedback-flow.type.js';
import { FeedbackRequest } from './feedback-request.entity.js';
import { FeedbackSuppression } from './feedback-suppression.entity.js';
import { presentRequest, type RequestRecord } from './feedback-request.presenter.js';

export { presentRequest };

export const findRequest = (em: EntityManager, business: string, id: string) =>
  findOwned(em, FeedbackRequest, { kind: 'feedbackRequest', label: 'Feedback request', business, id });

export function listRequests(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<FeedbackRequest, FeedbackRequestType>(em, FeedbackRequest, { scope: { business }, args, present: presentRequest, hydrate: true });
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
function recordChanges(em: EntityManager, rows: Record<string, unknown>[]) {
  for (const row of rows) {
    const record = recordOfRow(row);
    recordEvent(em, record.business, `feedbackrequest.${record.status}`, presentRequest(record));
  }
}

/** Cancels what is still scheduled (a flow deleted or disabled): it will never be due again. */
export async function cancelScheduled(em: EntityManager, business: string, where: { flow: string }, reason: string) {
  const rows = await em.execute<Record<string, unknown>[]>(
    `update feedback_request set status = 'cancelled', reason = ?, due_at = null, locked_until = null, locked_by = null, updated_at = now()
     where business_id = ? and flow_id = ? and status = 'scheduled' returning *`,
    [reason, business, where.flow],
  );
  recordChanges(em, rows);
}

/**
 * The guest answered the survey for this order (by the request's link, a QR code or the API): a sent or opened
 * request is completed, a scheduled one cancelled, and no reminder or expiry is due any more. Same transaction as
 * the answer.
 */
export async function settleForOrder(em: EntityManager, business: string, order: string) {
  const rows = await em.execute<Record<string, unknown>[]>(
    `update feedback_request set
       status = case when status = 'scheduled' then 'cancelled' else 'completed' end,
       reason = case when status = 'scheduled' then 'answered' else reason end,
       completed_at = case when status = 'scheduled' then null else now() end,
       due_at = null, locked_until = null, locked_by = null, updated_at = now()
     where order_id = ? and business_id = ? and status in ('scheduled', 'sent', 'opened') returning *`,
    [order, business],
  );
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
  const rows = await em.execute(
    `select 1 from feedback_request
     where business_id = ? and (email_hash = ? or phone_hash = ?) and created_at >= ? and created_at <= ? and order_id <> ? and id < ?
       and status in ('scheduled', 'sent', 'opened', 'completed', 'expired')
     limit 1`,
    [business, q.emailHash ?? '-', q.phoneHash ?? '-', new Date(q.before.getTime() - q.days * 86_400_000), q.before, q.excludeOrder, q.beforeId ?? 'fr_~'],
  );
  return rows.length > 0;
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
  const rows = await em.execute<{ channel: string }[]>(
    `select channel from feedback_suppression where business_id = ? and ((channel = 'email' and hash = ?) or (channel = 'sms' and hash = ?))`,
    [business, hashes.email ?? '-', hashes.sms ?? '-'],
  );
  const out = new Set(rows.map((r) => r.channel));
  const eligible = withContact.filter((c) => !out.has(c));
  return { channel: eligible[0] ?? null, eligible, reason: eligible.length ? null : 'opted_out' };
}

async function suppress(em: EntityManager, business: string, channel: 'email' | 'sms', hash: string, source: string): Promise<FeedbackSuppressionType> {
  await em.execute(
    `insert into feedback_suppression (id, business_id, channel, hash, source, created_at, updated_at)
     values (?, ?, ?, ?, ?, now(), now()) on conflict (business_id, channel, hash) do nothing`,
    [new FeedbackSuppression().id, business, channel, hash, source],
  );
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
  const scheduled = await em.execute<{ id: string; email_hash: string | null; phone_hash: string | null; channels: string[] | null }[]>(
    `select r.id, r.email_hash, r.phone_hash, f.channels from feedback_request r left join feedback_flow f on f.id = r.flow_id
     where r.business_id = ? and r.status = 'scheduled' and ${channel === 'email' ? 'r.email_hash' : 'r.phone_hash'} = ?`,
    [business, hash],
  );
  for (const r of scheduled) {
    const reach = await suppressionOf(em, business, r.channels ?? [], { email: r.email_hash, sms: r.phone_hash });
    if (!reach.reason) continue;
    const rows = await em.execute<Record<string, unknown>[]>(
      `update feedback_request set status = 'suppressed', reason = ?, due_at = null, updated_at = now()
       where id = ? and status = 'scheduled' and (locked_until is null or locked_until < now()) returning *`,
      [reach.reason, r.id],
    );
    recordChanges(em, rows);
  }
}

/** The API's opt-out: an e-mail address and/or a phone number that must not be asked again by this business. */
export async function suppressContact(em: EntityManager, business: string, input: { email?: string | null; phone?: string | null }): Promise<FeedbackSuppressionType[]> {
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
    const rows = await tx.execute<Record<string, unknown>[]>(
      `update feedback_request set status = 'opened', opened_at = now(), updated_at = now()
       where token = ? and status = 'sent' and expires_at > now() returning *`,
      [token],
    );
    recordChanges(tx, rows);
    const found = await tx.execute<Record<string, unknown>[]>(
      `select r.business_id, r.survey_id, r.channel, o.external_order_id, o.external_location_id, loc.metadata as location_metadata
       from feedback_request r join customer_order o on o.id = r.order_id
       left join lateral ${orderLocationSql('r.business_id', 'o.external_location_id')} loc on true
       where r.token = ?`,
      [token],
    );
    const row = found[0];
    if (!row) return null;
    return {
      business: row.business_id as string,
      survey: row.survey_id as string,
      channel: (row.channel as string | null) ?? null,
      externalOrderId: row.external_order_id as string,
      externalLocationId: (row.external_location_id as string | null) ?? null,
      locationMetadata: (row.location_metadata as string | null) ?? null,
    };
  });
}

/** The unsubscribe link (and its one-click POST): the request's contact on its channel joins the business's opt-out list. */
export async function unsubscribeByToken(em: EntityManager, token: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{10,40}$/.test(token)) return false;
  return em.transactional(async (tx) => {
    const rows = await tx.execute<{ business_id: string; channel: string | null; email_hash: string | null; phone_hash: string | null }[]>(
      'select business_id, channel, email_hash, phone_hash from feedback_request where token = ?',
      [token],
    );
    const r = rows[0];
    if (!r) return false;
    const channel = (r.channel ?? (r.email_hash ? 'email' : 'sms')) as 'email' | 'sms';
    const hash = channel === 'email' ? r.email_hash : r.phone_hash;
    if (hash) await suppress(tx, r.business_id, channel, hash, 'unsubscribe');
    return true;
  });
}

/** An inbound STOP from a phone: every business that has asked that number stops asking it by SMS. */
export async function stopFromPhone(em: EntityManager, phone: string): Promise<number> {
  const normal = normalisePhone(phone, null);
  if (!normal) throw AppError.validation([{ field: 'from', message: 'must be a phone number in E.164 (+923001234567)' }]);
  const hash = contactHash('sms', normal)!;
  return em.transactional(async (tx) => {
    const rows = await tx.execute<{ business_id: string }[]>('select distinct business_id from feedback_request where phone_hash = ?', [hash]);
    for (const r of rows) await suppress(tx, r.business_id, 'sms', hash, 'stop');
    return rows.length;
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listRequests, find: findRequest, present: presentRequest };
