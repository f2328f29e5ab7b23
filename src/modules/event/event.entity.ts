import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { newId } from '../../shared/id.js';
import { Business } from '../business/business.entity.js';
import { eventNotifyTrigger } from './event.signal.js';

/**
 * The advisory lock class (with hashtext(business) as its key) that orders an event's fan-out flag against a webhook
 * of its business being created or enabled: events take it shared, webhooks exclusively (see the triggers).
 */
export const FANOUT_LOCK_CLASS = 1163;

/**
 * Whether a new event is a job for the delivery workers, decided as it is inserted (by the ORM or raw SQL): only when
 * its business has an enabled webhook, so businesses without one pay nothing for delivery (no flag to clear, no
 * notification). The race: a webhook created in a transaction not yet committed is invisible here, yet must get the
 * events committed after it. So when none is seen, the insert takes the business's fan-out lock shared (waiting for
 * a webhook transaction holding it exclusively to end) and looks again with a fresh snapshot; holding it until
 * commit, it makes a later webhook transaction wait for this one, which then commits first. Outside read committed
 * (one snapshot for the transaction) it cannot look again, so the event stays pending.
 */
const FANOUT_FLAG_SQL = [
  'new.fanout_pending := exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled);',
  'if not new.fanout_pending then',
  `perform pg_advisory_xact_lock_shared(${FANOUT_LOCK_CLASS}, hashtext(new.business_id));`,
  "new.fanout_pending := current_setting('transaction_isolation') <> 'read committed'",
  'or exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled);',
  'end if;',
  "if new.fanout_pending then perform pg_notify('webhook_work', ''); end if;",
  'return new;',
].join(' ');

/** An immutable record of a change, written in the transaction of the change itself. */
@Entity({
  tableName: 'event',
  // Marks the event pending fan-out when it should be, and then wakes the delivery workers (LISTEN webhook_work) at commit;
  // and tells every process's live subscriptions (event.signal.ts).
  triggers: [{ name: 'event_fanout_flag', timing: 'before', events: ['insert'], forEach: 'row', body: FANOUT_FLAG_SQL }, eventNotifyTrigger],
})
@Index({ name: 'event_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'event_business_type_created_idx', properties: ['business', 'type', 'createdAt'] })
@Index({ name: 'event_fanout_pending_idx', expression: 'create index "event_fanout_pending_idx" on "event" ("created_at", "id") where "fanout_pending"' })
export class Event {
  [OptionalProps]?: 'createdAt' | 'fanoutPending';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('event');

  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' })
  business!: string;

  /** e.g. `order.created`, `survey.updated`. */
  @Property({ type: 'string', length: 100 })
  type!: string;

  /** {object: <the resource as the API shows it>} */
  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'datetime', length: 3 })
  createdAt: Date = new Date();

  /**
   * The outbox flag: set by the insert trigger (above) when the business has an enabled webhook, cleared by the
   * fan-out to webhook deliveries. Left unset here; the default only matters if the trigger is ever dropped.
   */
  @Property({ type: 'boolean', default: true })
  fanoutPending?: boolean;
}
