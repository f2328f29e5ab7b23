import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { newId } from '../../shared/id.js';
import { Business } from '../business/business.entity.js';
import { eventAudienceTrigger } from './event.signal.js';

/** An immutable record of a change, written in the transaction of the change itself. */
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
   * The outbox flag: set by the insert trigger (event.signal.ts) when the business has an enabled webhook, cleared by the
   * fan-out to webhook deliveries. Left unset here; the default only matters if the trigger is ever dropped.
   */
  @Property({ type: 'boolean', default: true })
  fanoutPending?: boolean;
}
