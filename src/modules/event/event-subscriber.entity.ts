import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { audienceLock } from './event.signal.js';

/**
 * A process with live subscribers of a business: while a row is unexpired, that business's events notify the
 * `events` channel (event.signal.ts). Each process keeps its rows fresh and removes them as its last subscriber of a
 * business leaves; a process that died leaves rows that expire. No foreign key: a row outliving its business is
 * harmless and goes when it expires.
 */
@Entity({
  tableName: 'event_subscriber',
  // A new row, or an expired one come back: the business's audience lock, exclusively, until commit.
  triggers: [{ name: 'event_subscriber_audience_lock', timing: 'after', events: ['insert', 'update'], forEach: 'row', body: audienceLock("tg_op = 'INSERT' or old.expires_at <= now()") }],
})
export class EventSubscriber {
  @PrimaryKey({ type: 'string', length: 40 })
  businessId!: string;

  /** The subscribing process (EventFeed's own id). */
  @PrimaryKey({ type: 'string', length: 80 })
  process!: string;

  @Property({ type: 'datetime', length: 3 })
  expiresAt!: Date;
}
