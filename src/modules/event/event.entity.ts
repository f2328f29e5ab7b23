import { AfterCreate, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps, type EventArgs } from '@mikro-orm/core';
import { newId } from '../../shared/id.js';
import { Business } from '../business/index.js';
import { eventAudienceTrigger, eventRecorded } from './event.signal.js';

/**
 * An immutable record of a change, written in the transaction of the change itself. Partitioned by range of id, a
 * week a partition, dropped EVENT_RETENTION_DAYS after (Migration20261127220000, kit/db/time-partitions.ts); the ORM's
 * `partitionBy` is not declared, since its schema diff would compare a fixed list of partitions with the ones the
 * workers create and drop.
 */
@Entity({
  tableName: 'event',
  // Marks the event pending fan-out and wakes the delivery workers, and tells the live subscriptions, when someone
  // listens (event.signal.ts).
  triggers: [eventAudienceTrigger],
})
@Index({ name: 'event_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'event_business_type_created_idx', properties: ['business', 'type', 'createdAt'] })
@Index({ name: 'event_fanout_pending_idx', expression: 'create index "event_fanout_pending_idx" on "event" ("created_at", "id") where "fanout_pending"' })
export class Event {
  [OptionalProps]?: 'createdAt' | 'fanoutPending';

  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('event');
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' }) business!: string;

  /** e.g. `order.created`, `survey.updated`. */
  @Property({ type: 'string', length: 100 }) type!: string;

  /** {object: <the resource as the API shows it>} */
  @Property({ type: 'json' }) data!: Record<string, unknown>;
  @Property({ type: 'datetime', length: 3 }) createdAt: Date = new Date();

  /**
   * The outbox flag: set by the insert trigger (event.signal.ts) when the business has an enabled webhook, cleared by the
   * fan-out to webhook deliveries; null when it has none but live subscribers. Left unset here, so the ORM's insert
   * returns the trigger's value; the default only matters if the trigger is ever dropped.
   */
  @Property({ type: 'boolean', nullable: true, defaultRaw: 'true' }) fanoutPending?: boolean | null;

  /** Whom to tell once the transaction commits (event.signal.ts), as the trigger decided. */
  @AfterCreate()
  recorded(args: EventArgs<Event>) {
    eventRecorded(args.em as Parameters<typeof eventRecorded>[0], this);
  }
}
