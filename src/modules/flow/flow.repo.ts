import type { EntityManager } from '@mikro-orm/postgresql';
import { outboxLeases } from '../../kit/db/outbox-job.leases.js';
import { sql, type Insertable, type Updateable } from 'kysely';
import { db } from '../../kit/db/db.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import { insertEvents, type Event } from '../event/index.js';
import type { Business } from '../business/index.js';
import type { Order } from '../order/index.js';
import { orderLocation, orderZone } from '../location/index.js';
import type { FlowTemplate, QuietHours } from './feedback-flow.entity.js';
import type { FeedbackFlow } from './feedback-flow.entity.js';
import type { FeedbackRequest, RequestStatus } from './feedback-request.entity.js';
import type { FeedbackSuppression } from './feedback-suppression.entity.js';

/**
 * The flow module's statements, on the EntityManager's own Kysely (`em`'s transaction when it has one), typed by the
 * entities' columns (TableOf).
 */
interface FlowDB {
  feedback_flow: TableOf<FeedbackFlow, 'business' | 'survey'>;
  feedback_request: TableOf<FeedbackRequest, 'business' | 'flow' | 'order' | 'survey'>;
  feedback_suppression: TableOf<FeedbackSuppression, 'business'>;
  event: TableOf<Event, 'business'>;
  customer_order: TableOf<Order, 'business'>;
  business: TableOf<Business>;
}

export type RequestRow = Insertable<FlowDB['feedback_request']>;

/** MikroORM's own Kysely (kit/db/db.ts): it runs in `em`'s transaction when there is one, and logs as the ORM does. */
const flowKysely = (em: EntityManager) => db<FlowDB>(em);

/** The feedback-request workers' LISTEN channel: only what queues a request notifies it. */
export const FEEDBACK_WORK_CHANNEL = 'feedback_work';

/** Tells the workers of every process, once `em`'s transaction commits, that a request falls due at `dueAt`. */
export function wakeFeedbackWorkers(em: EntityManager, dueAt: Date) {
  wakeAfterCommit(em, FEEDBACK_WORK_CHANNEL, dueAt);
}

/** When the first request not leased falls due (null: none), for the workers' look at every queue (due.poll.ts). */
export const nextRequestDue = sql<Date | null>`(select due_at from feedback_request
  where due_at is not null and (locked_until is null or locked_until < now()) order by due_at limit 1)`;

/** A business's enabled flows, by priority: what a new order is matched against. */
export function enabledFlows(em: EntityManager, business: string) {
  return flowKysely(em)
    .selectFrom('feedback_flow')
    .select(['id', 'trigger', 'conditions', 'survey_id', 'channels', 'delay_minutes', 'expires_after_hours'])
    .where('business_id', '=', business)
    .where('enabled', '=', true)
    .orderBy('priority')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * A request and its `feedbackrequest.created` event, in one statement: the unique (order, flow) index makes a
 * repeated or concurrent order create one request, and only a request written records its event. Answers, when it
 * was written, its event's `fanout_pending` (whom to tell: event.signal.ts).
 */
export async function insertRequest(
  em: EntityManager,
  request: RequestRow,
  event: { id: string; json: string },
): Promise<{ fanout_pending: boolean | null } | undefined> {
  const k = flowKysely(em);
  const inserted = k
    .insertInto('feedback_request')
    .values(request)
    .onConflict((oc) => oc.columns(['order_id', 'flow_id']).doNothing())
    .returning('id');
  const event_ = sql`select ${event.id}::text, ${request.business_id}::text, 'feedbackrequest.created', ${event.json}::jsonb, ${request.created_at}::timestamptz from r`;
  const { rows } = await sql<{ fanout_pending: boolean | null }>`with r as (${inserted}) ${insertEvents(event_)}`.execute(k);
  return rows[0];
}

export const requestLeases = outboxLeases('feedback_request');

/** A leased request with what its next step needs: the order's contact and the flow's settings (null: flow deleted). */
export interface LeasedRequest {
  id: string;
  business_id: string;
  order_id: string;
  status: string;
  token: string;
  attempts: number;
  channel: string | null;
  email_hash: string | null;
  phone_hash: string | null;
  created_at: Date;
  expires_at: Date;
  reminded_at: Date | null;
  external_order_id: string;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  order_metadata: Record<string, string>;
  flow_enabled: boolean | null;
  channels: string[] | null;
  quiet_hours: QuietHours | null;
  /** Where the guest ordered (location.repo's orderZone): quiet hours without a time zone of their own are read in it; null: none apply. */
  local_zone: string | null;
  throttle_days: number | null;
  reminder_after_hours: number | null;
  templates: Record<string, FlowTemplate> | null;
  /** The business's face in the message (issue 36): display name (else name), colour, logo file, Reply-To. */
  business_name: string;
  brand_color: string | null;
  logo_file: string | null;
  reply_to: string | null;
}

/** The request, while `worker` holds its lease. */
export async function leasedRequest(em: EntityManager, id: string, worker: string): Promise<LeasedRequest | undefined> {
  const row = await flowKysely(em)
    .selectFrom('feedback_request as r')
    .innerJoin('customer_order as o', 'o.id', 'r.order_id')
    .leftJoin('feedback_flow as f', 'f.id', 'r.flow_id')
    .innerJoin('business as b', 'b.id', 'r.business_id')
    .select([
      'r.id',
      'r.business_id',
      'r.order_id',
      'r.status',
      'r.token',
      'r.attempts',
      'r.channel',
      'r.email_hash',
      'r.phone_hash',
      'r.created_at',
      'r.expires_at',
      'r.reminded_at',
      'o.external_order_id',
      'o.customer_name',
      'o.customer_email',
      'o.customer_phone',
      'o.metadata as order_metadata',
      'f.enabled as flow_enabled',
      'f.channels',
      'f.quiet_hours',
      'f.throttle_days',
      'f.reminder_after_hours',
      'f.templates',
      sql<string>`coalesce(b.display_name, b.name)`.as('business_name'),
      'b.brand_color',
      'b.logo_file',
      'b.reply_to',
      orderZone(sql.ref('r.business_id'), sql.ref('o.external_location_id')).as('local_zone'),
    ])
    .where('r.id', '=', id)
    .where('r.locked_by', '=', worker)
    .executeTakeFirst();
  return row as LeasedRequest | undefined;
}

/** Columns a worker's step sets on a request. */
export type RequestChange = Updateable<FlowDB['feedback_request']>;

/** Applies `change` and gives the lease back, only while `worker` holds it; answers the row as it now stands. */
export async function finishLeased(em: EntityManager, business: string, id: string, worker: string, change: RequestChange) {
  return flowKysely(em)
    .updateTable('feedback_request')
    .set({ ...change, locked_until: null, locked_by: null, updated_at: sql<Date>`now()` })
    .where('business_id', '=', business)
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .returningAll()
    .executeTakeFirst();
}

/** Requests that ended failed because no sender was configured for their channel. */
export async function countFailedForNoSender(em: EntityManager): Promise<number> {
  const row = await flowKysely(em)
    .selectFrom('feedback_request')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('status', '=', 'failed')
    .where('error', 'like', 'no sender configured%')
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Cancels what `flow` still has scheduled (deleted or disabled): it will never be due again. Answers the rows changed. */
export function cancelScheduledOfFlow(em: EntityManager, business: string, flow: string, reason: string) {
  return flowKysely(em)
    .updateTable('feedback_request')
    .set({ status: 'cancelled', reason, due_at: null, locked_until: null, locked_by: null, updated_at: sql<Date>`now()` })
    .where('business_id', '=', business)
    .where('flow_id', '=', flow)
    .where('status', '=', 'scheduled')
    .returningAll()
    .execute();
}

/** The order was answered: sent or opened requests complete, scheduled ones are cancelled. Answers the rows changed. */
export function settleRequestsOfOrder(em: EntityManager, business: string, order: string) {
  const scheduled = sql<boolean>`status = 'scheduled'`;
  return flowKysely(em)
    .updateTable('feedback_request')
    .set({
      status: sql<RequestStatus>`case when ${scheduled} then 'cancelled' else 'completed' end`,
      reason: sql<string | null>`case when ${scheduled} then 'answered' else reason end`,
      completed_at: sql<Date | null>`case when ${scheduled} then null else now() end`,
      due_at: null,
      locked_until: null,
      locked_by: null,
      updated_at: sql<Date>`now()`,
    })
    .where('order_id', '=', order)
    .where('business_id', '=', business)
    .where('status', 'in', ['scheduled', 'sent', 'opened'])
    .returningAll()
    .execute();
}

/** Whether an earlier counted request of the business reached the same contact in [since, before] (the throttle). */
export async function earlierRequestExists(
  em: EntityManager,
  business: string,
  q: { emailHash: string | null; phoneHash: string | null; since: Date; before: Date; excludeOrder: string; beforeId: string },
): Promise<boolean> {
  const row = await flowKysely(em)
    .selectFrom('feedback_request')
    .select(sql<number>`1`.as('one'))
    .where('business_id', '=', business)
    .where((eb) => eb.or([eb('email_hash', '=', q.emailHash ?? '-'), eb('phone_hash', '=', q.phoneHash ?? '-')]))
    .where('created_at', '>=', q.since)
    .where('created_at', '<=', q.before)
    .where('order_id', '<>', q.excludeOrder)
    .where('id', '<', q.beforeId)
    .where('status', 'in', ['scheduled', 'sent', 'opened', 'completed', 'expired'])
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/** The channels on which the business's opt-out list holds these contacts. */
export async function optedOutChannels(em: EntityManager, business: string, hashes: { email: string | null; sms: string | null }): Promise<string[]> {
  const rows = await flowKysely(em)
    .selectFrom('feedback_suppression')
    .select('channel')
    .where('business_id', '=', business)
    .where((eb) =>
      eb.or([
        eb.and([eb('channel', '=', 'email'), eb('hash', '=', hashes.email ?? '-')]),
        eb.and([eb('channel', '=', 'sms'), eb('hash', '=', hashes.sms ?? '-')]),
      ]),
    )
    .execute();
  return rows.map((r) => r.channel);
}

/** Adds a contact to the business's opt-out list (once). */
export async function insertSuppression(em: EntityManager, row: { id: string; business: string; channel: string; hash: string; source: string }) {
  await flowKysely(em)
    .insertInto('feedback_suppression')
    .values({
      id: row.id,
      business_id: row.business,
      channel: row.channel,
      hash: row.hash,
      source: row.source,
      created_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .onConflict((oc) => oc.columns(['business_id', 'channel', 'hash']).doNothing())
    .execute();
}

/** The business's scheduled requests for this contact, with their flows' channels. */
export function scheduledForContact(em: EntityManager, business: string, channel: 'email' | 'sms', hash: string) {
  return flowKysely(em)
    .selectFrom('feedback_request as r')
    .leftJoin('feedback_flow as f', (join) => join.onRef('f.business_id', '=', 'r.business_id').onRef('f.id', '=', 'r.flow_id'))
    .select(['r.id', 'r.email_hash', 'r.phone_hash', 'f.channels'])
    .where('r.business_id', '=', business)
    .where('r.status', '=', 'scheduled')
    .where(channel === 'email' ? 'r.email_hash' : 'r.phone_hash', '=', hash)
    .execute();
}

/** Suppresses a scheduled request no worker holds; answers the row changed, if any. */
export function suppressScheduled(em: EntityManager, business: string, id: string, reason: string) {
  return flowKysely(em)
    .updateTable('feedback_request')
    .set({ status: 'suppressed', reason, due_at: null, updated_at: sql<Date>`now()` })
    .where('business_id', '=', business)
    .where('id', '=', id)
    .where('status', '=', 'scheduled')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .execute();
}

/** A sent request whose link was followed becomes opened (once, before it expires); answers the rows changed. */
export function openSentRequest(em: EntityManager, token: string) {
  return flowKysely(em)
    .updateTable('feedback_request')
    .set({ status: 'opened', opened_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('token', '=', token)
    .where('status', '=', 'sent')
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .execute();
}

/** Where a request's link leads: its survey, and its order's location as the link's `location:metadata` names it. */
export function linkTarget(em: EntityManager, token: string) {
  return flowKysely(em)
    .selectFrom('feedback_request as r')
    .innerJoin('customer_order as o', 'o.id', 'r.order_id')
    .select([
      'r.business_id',
      'r.survey_id',
      'r.channel',
      'o.external_order_id',
      'o.external_location_id',
      sql<string | null>`(select loc.metadata from ${orderLocation(sql.ref('r.business_id'), sql.ref('o.external_location_id'))} loc)`.as('location_metadata'),
    ])
    .where('r.token', '=', token)
    .executeTakeFirst();
}

/** The business whose request a link is (its unsubscribe page shows that business's brand). */
export function businessOfToken(em: EntityManager, token: string) {
  return flowKysely(em).selectFrom('feedback_request').select('business_id').where('token', '=', token).executeTakeFirst();
}

/** The contact and channel of the request behind a link. */
export function contactOfToken(em: EntityManager, token: string) {
  return flowKysely(em)
    .selectFrom('feedback_request')
    .select(['business_id', 'channel', 'email_hash', 'phone_hash'])
    .where('token', '=', token)
    .executeTakeFirst();
}

/** The businesses that have asked this phone number. */
export async function businessesAskingPhone(em: EntityManager, hash: string): Promise<string[]> {
  const rows = await flowKysely(em).selectFrom('feedback_request').select('business_id').distinct().where('phone_hash', '=', hash).execute();
  return rows.map((r) => r.business_id);
}

/** The businesses whose feedback requests (or their reminders) went to this phone number by SMS since `since`. */
export async function businessesTextingPhoneSince(em: EntityManager, hash: string, since: Date): Promise<string[]> {
  const rows = await flowKysely(em)
    .selectFrom('feedback_request')
    .select('business_id')
    .distinct()
    .where('phone_hash', '=', hash)
    .where('channel', '=', 'sms')
    .where((eb) => eb(eb.fn.coalesce('reminded_at', 'sent_at'), '>', since))
    .execute();
  return rows.map((r) => r.business_id);
}

/**
 * Requests that failed for want of a sender, scheduled again now while their flow's window is open (run at a start
 * with a sender; the send checks quiet hours, throttle, opt-out and budgets again). Answers how many.
 */
export async function requeueUnsentRequests(em: EntityManager): Promise<number> {
  const rows = await flowKysely(em)
    .updateTable('feedback_request')
    .set({ status: 'scheduled', error: null, attempts: 0, due_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('status', '=', 'failed')
    .where('error', 'like', 'no sender configured%')
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .execute();
  return rows.length;
}
