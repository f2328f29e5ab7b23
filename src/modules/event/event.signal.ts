import type { TriggerDef } from '@mikro-orm/core';

/**
 * Who hears of an event as it commits, beyond the event log: the delivery workers (LISTEN webhook_work) when its
 * business has an enabled webhook, and every process's live subscriptions (LISTEN events, with "<business> <event id>
 * <type>": ids and types hold no spaces) when a process has a subscriber of that business (event_subscriber).
 *
 * Only then, because a NOTIFY is not free: PostgreSQL serialises the commits of all transactions that notify (one
 * lock on the notification queue, held through the commit's WAL flush), which halved the rate of concurrent event
 * writes (pgbench, 8 clients: 2,100-2,400 commits/s notifying, 4,700-5,200 not). An order or submission of a
 * business nobody listens to now commits without it.
 */
export const EVENTS_CHANNEL = 'events';
export const WEBHOOK_WORK_CHANNEL = 'webhook_work';

/**
 * The advisory lock class (with hashtext(business) as its key) that orders an event's audience check against an
 * audience of its business appearing (a webhook created or enabled, a process's first subscriber): events take it
 * shared, the newcomers exclusively, until commit.
 */
export const AUDIENCE_LOCK_CLASS = 1163;

/** The newcomer's side, for the triggers of `webhook` and `event_subscriber`: `when` says when a row is one (always: none). */
export function audienceLock(when?: string) {
  const lock = `perform pg_advisory_xact_lock(${AUDIENCE_LOCK_CLASS}, hashtext(new.business_id));`;
  return when ? `if ${when} then ${lock} end if; return null;` : `${lock} return null;`;
}

/**
 * The event's side, decided as it is inserted (by the ORM or raw SQL). The race: a webhook or subscriber registered in
 * a transaction not yet committed is invisible to a snapshot taken before its commit, yet must get the events
 * committed after it. So the insert first takes the business's audience lock shared (waiting for a newcomer's
 * transaction holding it exclusively to end) and only then looks, with a snapshot taken after the lock; holding it
 * until commit, it makes a later newcomer wait for this event to commit first. Outside read committed (one snapshot
 * for the whole transaction) it cannot look afresh, so it assumes both. `fanout_pending` is the delivery workers'
 * outbox flag. Two statements in all: one lock, one look at both tables.
 */
const AUDIENCE_SQL = [
  'declare',
  '  webhooks boolean;',
  '  subscribers boolean;',
  'begin',
  `  perform pg_advisory_xact_lock_shared(${AUDIENCE_LOCK_CLASS}, hashtext(new.business_id));`,
  '  select exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled),',
  '         exists (select 1 from event_subscriber s where s.business_id = new.business_id and s.expires_at > now())',
  '    into webhooks, subscribers;',
  "  if current_setting('transaction_isolation') <> 'read committed' then",
  '    webhooks := true;',
  '    subscribers := true;',
  '  end if;',
  '  new.fanout_pending := webhooks;',
  `  if webhooks then perform pg_notify('${WEBHOOK_WORK_CHANNEL}', ''); end if;`,
  `  if subscribers then perform pg_notify('${EVENTS_CHANNEL}', new.business_id || ' ' || new.id || ' ' || new.type); end if;`,
  '  return new;',
  'end;',
].join(' ');

export const eventAudienceTrigger: TriggerDef = { name: 'event_audience', timing: 'before', events: ['insert'], forEach: 'row', body: AUDIENCE_SQL };
