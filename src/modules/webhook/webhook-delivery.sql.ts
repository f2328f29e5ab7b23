/**
 * The delivery workers' SQL, kept apart so the task reads as a handful of steps. Placeholders are PostgreSQL's
 * own ($n); these run on the ORM's `pg` pool.
 */

/** Events not yet fanned out, oldest first; SKIP LOCKED lets several processes take disjoint batches. */
export const PENDING_EVENTS_SQL = `
select id, business_id, type from event
where fanout_pending
order by created_at, id
limit $1
for update skip locked`;

/** The enabled webhooks of these businesses; the subscription match is done in code, per event. */
export const SUBSCRIBED_WEBHOOKS_SQL = `
select id, business_id, events from webhook where business_id = any($1::text[]) and enabled`;

export const INSERT_DELIVERIES_SQL = `
insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, next_attempt_at, created_at, updated_at)
select d.id, d.business_id, d.webhook_id, d.event_id, d.event_type, $2, $2, $2
from jsonb_to_recordset($1::jsonb) as d(id text, business_id text, webhook_id text, event_id text, event_type text)
on conflict (event_id, webhook_id) do nothing`;

export const EVENTS_FANNED_OUT_SQL = `update event set fanout_pending = false where id = any($1::text[])`;

/**
 * Leases due deliveries to this worker, a lane per webhook: the worker keeps a few leased ahead of its 4 attempts in
 * flight, so an attempt that ends starts the next at once instead of waiting for this statement.
 * - queued: the webhooks with anything in the queue (due now or later), by a loose scan of the due index: one probe
 *   per such webhook, never one per enabled webhook of every business.
 * - owned: those this worker may lease from: enabled, not held back by its rate (`$5`), and leased by no other worker,
 *   so a webhook's attempts run in one worker at a time and its cap of 4 in flight holds across processes. The rows
 *   are locked (SKIP LOCKED) so two claims never decide for one webhook at once.
 * - candidate: per webhook, oldest due first, up to its lane's depth (`$7`, or `$4` for the slow webhooks `$6`) less
 *   what this worker holds leased already; at most `$1` in all.
 * The inner FOR UPDATE SKIP LOCKED, with its conditions re-checked on the locked row, means two processes never
 * lease the same delivery. Answers what an attempt needs: the event and the webhook's URL and secrets.
 */
export const CLAIM_SQL = `
with recursive queued(webhook_id) as (
  (select webhook_id from webhook_delivery where next_attempt_at is not null order by webhook_id limit 1)
  union all
  select (select d.webhook_id from webhook_delivery d
          where d.next_attempt_at is not null and d.webhook_id > q.webhook_id order by d.webhook_id limit 1)
  from queued q where q.webhook_id is not null
),
owned as (
  select w.id from webhook w
  where w.id in (select webhook_id from queued where webhook_id is not null) and w.enabled and not (w.id = any($5::text[]))
    and not exists (select 1 from webhook_delivery l where l.webhook_id = w.id and l.locked_until > now() and l.locked_by <> $3)
  for no key update of w skip locked
),
candidate as (
  select x.id, x.next_attempt_at
  from owned w
  cross join lateral (
    select count(*)::int as n from webhook_delivery l where l.webhook_id = w.id and l.locked_until > now() and l.locked_by = $3
  ) mine
  cross join lateral (
    select x.id, x.next_attempt_at from webhook_delivery x
    where x.webhook_id = w.id and x.next_attempt_at <= now() and (x.locked_until is null or x.locked_until < now())
    order by x.next_attempt_at, x.id
    limit greatest(0, (case when w.id = any($6::text[]) then $4::int else $7::int end) - mine.n)
  ) x
  order by x.next_attempt_at
  limit $1
),
leased as (
  select d.id from webhook_delivery d
  where d.id in (select id from candidate) and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
  for update of d skip locked
)
update webhook_delivery d
set locked_until = now() + make_interval(secs => $2::double precision / 1000), locked_by = $3
from event e, webhook w
where d.id in (select id from leased) and e.id = d.event_id and w.id = d.webhook_id
returning d.id, d.business_id, d.webhook_id, d.event_id, d.event_type, d.status, d.attempt_count,
  e.data as event_data, e.created_at as event_created_at,
  w.url, w.secret,
  case when w.secret_previous_until > now() then w.secret_previous end as secret_previous`;

/**
 * Attempts' outcomes, a batch in one statement, each only while this worker still holds its lease (an expired lease
 * went to another), and the webhooks' failing streaks with them: a 2xx in the batch ends a webhook's streak, a
 * failure starts one if none is running.
 */
export const RECORD_ATTEMPTS_SQL = `
with r as (
  select * from jsonb_to_recordset($1::jsonb) as r(id text, status text, attempt jsonb, next_attempt_at timestamptz, ok boolean)
),
d as (
  update webhook_delivery d
  set status = r.status, attempt_count = d.attempt_count + 1, attempts = d.attempts || jsonb_build_array(r.attempt),
    next_attempt_at = r.next_attempt_at, locked_until = null, locked_by = null, updated_at = now()
  from r
  where d.id = r.id and d.locked_by = $2
  returning d.webhook_id, r.ok
),
s as (select webhook_id, bool_or(ok) as ok from d group by webhook_id)
update webhook w set failing_since = case when s.ok then null else now() end
from s
where w.id = s.webhook_id and (w.failing_since is null) = not s.ok`;

/** Gives back leases of attempts that will not run (shutdown): due again at once, for any process. */
export const RELEASE_SQL = `
update webhook_delivery set locked_until = null, locked_by = null where id = any($1::text[]) and locked_by = $2`;

/**
 * A webhook to disable: every attempt failed for `$2` ms, and at least `$3` deliveries ran out of retries in that
 * time. Answers the webhook when it qualifies.
 */
export const SHOULD_DISABLE_SQL = `
select w.id from webhook w
where w.id = $1 and w.enabled and w.failing_since <= now() - make_interval(secs => $2::double precision / 1000)
  and (select count(*) from webhook_delivery d
       where d.webhook_id = w.id and d.status = 'exhausted' and d.updated_at >= w.failing_since) >= $3`;

/** Finished deliveries older than the retention, a batch at a time. */
export const PURGE_SQL = `
delete from webhook_delivery where id in (
  select id from webhook_delivery where created_at < $1 and next_attempt_at is null limit $2
)`;
