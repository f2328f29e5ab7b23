import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { db, runPrepared } from '../../kit/db/db.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import { idAt } from '../../shared/id.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { Event } from '../event/index.js';
import type { DeliveryAttempt, DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity.js';
import type { Webhook } from './webhook.entity.js';

/**
 * The webhook module's statements (the delivery queue's above all), on the EntityManager's own Kysely: in `em`'s
 * transaction when it has one, on the pool otherwise. The queue's two big statements (the lease and the batched
 * record) are written with Kysely's `sql` tag: a loose index scan and a per-webhook lateral limit read better as SQL.
 */
interface WebhookDB {
  webhook: TableOf<Webhook, 'business'>;
  webhook_delivery: TableOf<WebhookDelivery, 'business' | 'webhook' | 'event'>;
  event: TableOf<Event, 'business'>;
}

/** MikroORM's own Kysely (kit/db/db.ts): it runs in `em`'s transaction when there is one, and logs as the ORM does. */
const webhookKysely = (em: EntityManager) => db<WebhookDB>(em);

/** What a worker asks of a lease (the claim's and the fan-out's): see claimDeliveries. */
export interface LeaseAsk {
  limit: number;
  leaseMs: number;
  worker: string;
  cap: number;
  heldBack: string[];
  slow: string[];
  depth: number;
  held: Record<string, number>;
}

/** A webhook `w` this worker may lease from: enabled, not held back by its rate, and not held by another worker. */
const mayLease = (q: LeaseAsk) =>
  sql`w.enabled and not (w.id = any(${q.heldBack}::text[])) and (w.leased_by = ${q.worker} or w.leased_until is null or w.leased_until <= now())`;
/** How many more of webhook `w`'s deliveries this worker may lease: its lane's depth (`cap` if slow) less what it holds. */
const laneRoom = (q: LeaseAsk) =>
  sql`greatest(0, (case when w.id = any(${q.slow}::text[]) then ${q.cap}::int else ${q.depth}::int end) - coalesce((${JSON.stringify(q.held)}::jsonb ->> w.id)::int, 0))`;
const leaseEnd = (q: LeaseAsk) => sql`now() + make_interval(secs => ${q.leaseMs}::double precision / 1000)`;
/** A leased delivery's row as the worker gets it (ClaimedDelivery), from the delivery `d`, its event `e` and webhook `w`. */
const claimedColumns = sql`d.id, d.business_id, d.webhook_id, d.event_id, d.event_type, d.status, d.attempt_count,
    e.data as event_data, e.created_at as event_created_at,
    w.url, w.secret,
    case when w.secret_previous_until > now() then w.secret_previous end as secret_previous`;

/** A fan-out for no worker (the tests'): it leases nothing. */
const NO_LEASE: LeaseAsk = { limit: 0, leaseMs: 0, worker: '', cap: 0, heldBack: [], slow: [], depth: 0, held: {} };

/** A fan-out's outcome: the events it took, the deliveries it made, and those of them it leased to the asking worker. */
export interface FanOut {
  events: number;
  made: number;
  leased: ClaimedDelivery[];
}

/**
 * Fans up to `limit` events not yet fanned out (oldest first) into deliveries, in one statement committed alone: one
 * delivery per (event, enabled webhook of its business subscribed to its type, or to `*` for any type but
 * `webhook.test`, which goes only where it is sent), due at `now`, and the events marked done with them. SKIP LOCKED
 * lets several processes take disjoint batches. A repeated fan-out is harmless: a delivery's id is made from its event
 * and webhook (webhook_delivery_id, the same as deliveryId), so the primary key refuses a second one (and, in the
 * partition of the rows from before partitioning, their unique (event, webhook) key).
 *
 * With `lease`, the deliveries are born leased to that worker as far as its claim would lease them (the claim's rules:
 * webhooks it may hold, up to each lane's room, at most `lease.limit`), their webhooks held with them: the common case,
 * a delivery attempted once by the process that fanned it out, costs no claim and no second write of the row. The rest
 * are left due for any worker's claim. A delivery is never older than its event: `now`, taken before the statement
 * waited for a connection, may be older than an event it then sees, and a recovery of [since, until) must find it.
 */
export async function fanOutEvents(em: EntityManager, limit: number, now: Date, lease?: LeaseAsk): Promise<FanOut> {
  const q = lease ?? NO_LEASE;
  const rows = await runPrepared<ClaimedDelivery & { events: number; made: number }>(
    em,
    'webhook.fanOut',
    sql`with e as (
  select id, business_id, type, data, created_at from event where fanout_pending order by created_at, id limit ${limit} for update skip locked
),
p as (
  select webhook_delivery_id(e.id, w.id) as id, e.id as event_id, w.id as webhook_id,
    row_number() over (partition by w.id order by e.created_at, e.id) as n
  from e join webhook w on w.business_id = e.business_id and w.enabled
   and (w.events @> to_jsonb(e.type) or (w.events @> '"*"'::jsonb and e.type <> 'webhook.test'))
),
owned as (
  select w.id, ${laneRoom(q)} as room from webhook w
  where ${q.limit}::int > 0 and w.id in (select webhook_id from p) and ${mayLease(q)}
  for no key update of w skip locked
),
pick as (
  select p.id from p join owned o on o.id = p.webhook_id where p.n <= o.room order by p.n, p.id limit ${q.limit}
),
d as (
  insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, status, attempt_count, attempts, next_attempt_at, locked_until, locked_by, created_at, updated_at)
  select p.id, e.business_id, p.webhook_id, e.id, e.type, 'pending', 0, '[]'::jsonb, ${now},
    case when k.id is not null then ${leaseEnd(q)} end, case when k.id is not null then ${q.worker} end,
    greatest(${now}, e.created_at), greatest(${now}, e.created_at)
    from p join e on e.id = p.event_id left join pick k on k.id = p.id
   order by 1
  on conflict do nothing
  returning id, business_id, webhook_id, event_id, event_type, status, attempt_count, locked_by
),
hold as (
  update webhook w set leased_by = ${q.worker}, leased_until = ${leaseEnd(q)}
  where w.id in (select webhook_id from d where locked_by = ${q.worker})
),
m as (update event set fanout_pending = false where id in (select id from e) returning 1)
select (select count(*) from m)::int as events, (select count(*) from d)::int as made, l.*
from (select 1) as one
left join (
  select ${claimedColumns}
  from d join e on e.id = d.event_id join webhook w on w.id = d.webhook_id
  where d.locked_by = ${q.worker}
) as l on true`,
  );
  return { events: rows[0].events, made: rows[0].made, leased: rows.filter((r) => r.id != null).map(({ events: _e, made: _m, ...delivery }) => delivery) };
}

/** A leased delivery, with what its attempt needs: the event and the webhook's URL and secrets. */
export interface ClaimedDelivery {
  id: string;
  business_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  event_data: Record<string, unknown>;
  event_created_at: Date;
  url: string;
  secret: string;
  secret_previous: string | null;
}

/**
 * Leases due deliveries to `worker`, a lane per webhook: the worker keeps a few leased ahead of its attempts in
 * flight, so an attempt that ends starts the next at once instead of waiting for this statement.
 * - queued: the webhooks with anything in the queue (due now or later), by a loose scan of the due index: one probe
 *   per such webhook, never one per enabled webhook of every business.
 * - owned: those this worker may lease from: enabled, not held back by its rate (`heldBack`), and not held by another
 *   worker (the webhook's own lease, `leased_by` until `leased_until`), so a webhook's attempts run in one worker at a
 *   time and its cap in flight holds across processes. The rows are locked (SKIP LOCKED) so two claims never decide
 *   for one webhook at once.
 * - candidate: per webhook, oldest due first, up to its lane's depth (`depth`, or `cap` for the `slow` webhooks) less
 *   what this worker holds leased already (`held`, the worker's own count); at most `limit` in all.
 * - taken: the deliveries leased (the inner FOR UPDATE SKIP LOCKED, with its conditions re-checked on the locked row,
 *   means two processes never lease the same delivery); `hold`: their webhooks held by this worker as long as the
 *   lease, so a webhook's hold always outlasts the worker's leases of its deliveries.
 * What is held is read off the webhook rows and the worker's count, not off the leased deliveries: a scan of those grew
 * with the partition and rested on its statistics (a plan made while it was small read all of it, every claim).
 */
export async function claimDeliveries(em: EntityManager, q: LeaseAsk): Promise<ClaimedDelivery[]> {
  // Every scan of the queue stops before tomorrow's ids: the partitions made ahead of time hold nothing yet, and the
  // bound lets PostgreSQL leave them out of each scan as the statement starts (a delivery's id is its event's time).
  const before = idAt('webhookDelivery', Date.now() + 86_400_000);
  const claim = sql<ClaimedDelivery>`
with recursive queued(webhook_id) as (
  (select webhook_id from webhook_delivery where next_attempt_at is not null and id < ${before} order by webhook_id limit 1)
  union all
  select (select d.webhook_id from webhook_delivery d
          where d.next_attempt_at is not null and d.id < ${before} and d.webhook_id > q.webhook_id order by d.webhook_id limit 1)
  from queued q where q.webhook_id is not null
),
owned as (
  select w.id from webhook w
  where w.id in (select webhook_id from queued where webhook_id is not null) and ${mayLease(q)}
  for no key update of w skip locked
),
candidate as (
  select x.id, x.next_attempt_at
  from owned w
  cross join lateral (
    select x.id, x.next_attempt_at from webhook_delivery x
    where x.webhook_id = w.id and x.id < ${before} and x.next_attempt_at <= now() and (x.locked_until is null or x.locked_until < now())
    order by x.next_attempt_at, x.id
    limit ${laneRoom(q)}
  ) x
  order by x.next_attempt_at
  limit ${q.limit}
),
leased as (
  select d.id from webhook_delivery d
  where d.id in (select id from candidate) and d.id < ${before} and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
  for update of d skip locked
),
taken as (
  update webhook_delivery d
  set locked_until = ${leaseEnd(q)}, locked_by = ${q.worker}
  from event e, webhook w
  where d.id in (select id from leased) and d.id < ${before} and e.id = d.event_id and w.id = d.webhook_id
  returning ${claimedColumns}
),
hold as (
  update webhook w set leased_by = ${q.worker}, leased_until = ${leaseEnd(q)}
  where w.id in (select webhook_id from taken)
)
select * from taken`;
  // The delivery loop's own statements run several times a second under load: over the partitioned delivery and event
  // tables, planning one costs about what running it does.
  return runPrepared(em, 'webhook.claim', claim);
}

/** An attempt's outcome, as recordAttempts writes it. */
export interface AttemptRecord {
  id: string;
  status: DeliveryStatus;
  attempt: DeliveryAttempt;
  next_attempt_at: Date | null;
  ok: boolean;
}

/**
 * Attempts' outcomes, a batch in one statement, each only while `worker` still holds its lease (an expired lease went
 * to another), and the webhooks' failing streaks with them: a 2xx in the batch ends a webhook's streak, a failure
 * starts one if none is running.
 */
export async function recordAttempts(em: EntityManager, worker: string, batch: AttemptRecord[]) {
  // The batch's least and greatest ids bound the update to the partitions that hold its rows.
  const ids = batch.map((r) => r.id).sort();
  const record = sql`
with r as (
  select * from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(id text, status text, attempt jsonb, next_attempt_at timestamptz, ok boolean)
),
d as (
  update webhook_delivery d
  set status = r.status, attempt_count = d.attempt_count + 1, attempts = d.attempts || jsonb_build_array(r.attempt),
    next_attempt_at = r.next_attempt_at, locked_until = null, locked_by = null, updated_at = now()
  from r
  where d.id = r.id and d.id between ${ids[0]} and ${ids.at(-1)} and d.locked_by = ${worker}
  returning d.webhook_id, r.ok
),
s as (select webhook_id, bool_or(ok) as ok from d group by webhook_id)
update webhook w set failing_since = case when s.ok then null else now() end
from s
where w.id = s.webhook_id and (w.failing_since is null) = not s.ok`;
  await runPrepared(em, 'webhook.record', record);
}

/** Gives back the webhooks `worker` holds (shutdown, its attempts over): any process may lease from them at once. */
export async function releaseWebhooks(em: EntityManager, worker: string) {
  await webhookKysely(em).updateTable('webhook').set({ leased_by: null, leased_until: null }).where('leased_by', '=', worker).execute();
}

/** Gives back leases of attempts that will not run (shutdown): due again at once, for any process. */
export async function releaseDeliveries(em: EntityManager, worker: string, ids: string[]) {
  await webhookKysely(em)
    .updateTable('webhook_delivery')
    .set({ locked_until: null, locked_by: null })
    .where('id', 'in', ids)
    .where('locked_by', '=', worker)
    .execute();
}

/**
 * Whether to disable a webhook: enabled, every attempt failed for `failingMs`, and at least `exhausted` deliveries
 * ran out of retries in that time.
 */
export async function shouldDisable(em: EntityManager, business: string, webhook: string, failingMs: number, exhausted: number): Promise<boolean> {
  const row = await webhookKysely(em)
    .selectFrom('webhook as w')
    .select('w.id')
    .where('w.business_id', '=', business)
    .where('w.id', '=', webhook)
    .where('w.enabled', '=', true)
    .where('w.failing_since', '<=', sql<Date>`now() - make_interval(secs => ${failingMs}::double precision / 1000)`)
    .where(
      (eb) =>
        eb
          .selectFrom('webhook_delivery as d')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('d.business_id', '=', 'w.business_id')
          .whereRef('d.webhook_id', '=', 'w.id')
          .where('d.status', '=', 'exhausted')
          .whereRef('d.updated_at', '>=', 'w.failing_since'),
      '>=',
      exhausted,
    )
    .executeTakeFirst();
  return !!row;
}

/** Whether a partition of webhook_delivery holds a delivery due again for an enabled webhook (its retries go on). */
export async function hasDeliveriesInRetry(em: EntityManager, partition: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from ${sql.table(partition)} d join webhook w on w.id = d.webhook_id
                    where d.next_attempt_at is not null and w.enabled) as found`.execute(webhookKysely(em));
  return rows[0].found;
}

/**
 * What wakes the delivery workers' claims (they LISTEN on it, beside the events' channel that wakes their fan-out):
 * deliveries made due by hand (a test, a redelivery, a recovery), or left by a fan-out for whichever worker may lease
 * them.
 */
export const DELIVERIES_DUE_CHANNEL = 'webhook_deliveries';

/** Wakes every process's delivery workers to claim, once `em`'s transaction commits (at once outside one: kit/signals/signals.ts). */
export function notifyWorkers(em: EntityManager) {
  wakeAfterCommit(em, DELIVERIES_DUE_CHANNEL);
}

/**
 * For the workers' look at every queue (src/worker/due.poll.ts): when the first delivery not leased falls due for
 * an enabled webhook (null: none), and since when an event waits for its fan-out (null: none).
 */
export const nextDeliveryDue = sql<Date | null>`(select min(d.next_attempt_at) from webhook_delivery d join webhook w on w.id = d.webhook_id
  where d.next_attempt_at is not null and (d.locked_until is null or d.locked_until < now()) and w.enabled)`;
export const fanOutDue = sql<Date | null>`(select min(created_at) from event where fanout_pending)`;

/** Deliveries due and not yet attempted: how many, and how long the oldest has waited (seconds). */
export async function dueDeliveries(em: EntityManager): Promise<{ depth: number; oldest: number }> {
  const row = await webhookKysely(em)
    .selectFrom('webhook_delivery')
    .select([sql<number>`count(*)::int`.as('depth'), sql<number>`coalesce(extract(epoch from now() - min(next_attempt_at)), 0)::float8`.as('oldest')])
    .where('next_attempt_at', 'is not', null)
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return row;
}
