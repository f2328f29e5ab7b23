import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { newId } from '../../shared/id.js';
import { Business } from '../business/business.entity.js';

/** An immutable record of a change, written in the transaction of the change itself. */
@Entity({
  tableName: 'event',
  // Wakes the delivery workers (LISTEN webhook_work) once per inserting statement, at commit.
  triggers: [{ name: 'event_webhook_work', timing: 'after', events: ['insert'], forEach: 'statement', body: "perform pg_notify('webhook_work', ''); return null;" }],
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
   * The outbox flag: every new event (written by the ORM or by raw SQL) starts true, from the column default, and
   * the fan-out to webhook deliveries clears it. Left unset here so inserts take the default.
   */
  @Property({ type: 'boolean', default: true })
  fanoutPending?: boolean;
}
