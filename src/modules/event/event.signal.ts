import type { TriggerDef } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { announceAfterCommit, wakeAfterCommit } from '../../kit/signals/signals.js';

/**
 * Who hears of an event once it commits, beyond the event log: the delivery workers (channel webhook_work) when its
 * business has an enabled webhook, and every process's live subscriptions (channel events, one line "<business>
 * <event id> <type>" per event: ids and types hold no spaces) when a process has a subscriber of that business
 * (event_subscriber).
 *
 * The insert trigger decides, under the business's audience lock, and writes its decision on the row itself:
 * `fanout_pending` true (an enabled webhook: pending fan-out, and maybe live subscribers), null (no webhook, live
 * subscribers) or false (nobody). The writer reads it back with the insert (RETURNING) and tells after commit
 * (kit/signals/signals.ts): no NOTIFY runs in the writer's transaction, since PostgreSQL serialises the commits of all
 * transactions that notify on one lock; and an event of a business nobody listens to tells nobody anything.
 */
export const EVENTS_CHANNEL = 'events';
export const WEBHOOK_WORK_CHANNEL = 'webhook_work';

/**
 * The advisory lock class (with hashtext(business) as its key) that orders an event's audience check against an
 * audience of its business appearing (a webhook created or enabled, a process's first subscriber): events take it
 * shared, the newcomers exclusively, until commit.
 */
const AUDIENCE_LOCK_CLASS = 1163;

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
 * outbox flag and the writer's note of whom to tell. Two statements in all: one lock, one look at both tables.
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
  '  new.fanout_pending := case when webhooks then true when subscribers then null else false end;',
  '  return new;',
  'end;',
].join(' ');

export const eventAudienceTrigger: TriggerDef = { name: 'event_audience', timing: 'before', events: ['insert'], forEach: 'row', body: AUDIENCE_SQL };

/** An event as inserted, with the trigger's decision read back (`fanout_pending`). */
export interface RecordedEvent {
  id: string;
  business: string;
  type: string;
  fanoutPending?: boolean | null;
}

/**
 * Registers, in the event's transaction (`em`'s), whom to tell once it commits: the delivery workers when it is
 * pending fan-out, the live subscriptions when a process may have a subscriber of its business. Every writer of
 * events calls it with what its insert returned (the ORM's insert returns the column by itself: event.entity.ts).
 */
export function eventRecorded(em: EntityManager, event: RecordedEvent): void {
  if (event.fanoutPending === false) return;
  if (event.fanoutPending === true) wakeAfterCommit(em, WEBHOOK_WORK_CHANNEL);
  announceAfterCommit(em, EVENTS_CHANNEL, `${event.business} ${event.id} ${event.type}`);
}
