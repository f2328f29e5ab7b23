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
  // Every registration and refresh: the business's audience lock, exclusively, until commit. Even a refresh of a row
  // still valid, since an event whose transaction began later may judge that row expired (the lock then makes it wait
  // for the refresh and look again). A refresh per business every 20 s makes its event writers wait a moment at most.
  triggers: [{ name: 'event_subscriber_audience_lock', timing: 'after', events: ['insert', 'update'], forEach: 'row', body: audienceLock() }],
})
export class EventSubscriber {
  @PrimaryKey({ type: 'string', length: 40 }) businessId!: string;

  /** The subscribing process (EventFeed's own id). */
  @PrimaryKey({ type: 'string', length: 80 }) process!: string;
  @Property({ type: 'datetime', length: 3 }) expiresAt!: Date;
}
