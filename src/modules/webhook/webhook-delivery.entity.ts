import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { idFor, idTime } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Event } from '../event/index.js';
import { Webhook } from './webhook.entity.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** One try, as the delivery log shows it. */
export interface DeliveryAttempt {
  at: number;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/**
 * A delivery's id: its event's time, then a hash of its event and webhook. The primary key so keeps one delivery per
 * (event, webhook), a key the table could not hold itself (a partitioned table's unique keys include its partition
 * key, the id), and a delivery lands in the week of its event, which it never outlives.
 */
export function deliveryId(event: string, webhook: string): string {
  // An event's id always carries its time; the fallback only keeps a malformed one from stopping the fan-out.
  return idFor('webhookDelivery', idTime(event) ?? Date.now(), `${event} ${webhook}`);
}

/**
 * One event to one webhook, and its job: due when `nextAttemptAt` is set and past, leased to one worker while
 * `lockedUntil` is in the future. Its id (deliveryId) is the `webhook-id` header, the same on every retry and
 * redelivery.
 *
 * Partitioned by range of id, a week a partition (Migration20261127220000, kit/db/time-partitions.ts): the ORM's own
 * `partitionBy` is not declared, since its schema diff would compare a fixed list of partitions with the ones the
 * workers create and drop. No foreign key to the event either: one referencing a partitioned table would make every
 * partition's creation and drop check or lock the other table; the partitions' order keeps each delivery's event.
 */
@Entity({ tableName: 'webhook_delivery' })
@Index({ name: 'webhook_delivery_webhook_created_idx', properties: ['webhook', 'createdAt', 'id'] })
// The queue's partial index: due deliveries per webhook. A lease is in no index, so leasing rewrites no index entry.
@Index({
  name: 'webhook_delivery_due_idx',
  expression: 'create index "webhook_delivery_due_idx" on "webhook_delivery" ("webhook_id", "next_attempt_at", "id") where "next_attempt_at" is not null',
})
export class WebhookDelivery extends BusinessOwnedEntity {
  @ManyToOne(() => Webhook, { mapToPk: true, deleteRule: 'cascade' }) webhook!: string;
  @ManyToOne(() => Event, { mapToPk: true, createForeignKeyConstraint: false }) event!: string;
  @Property({ type: 'string', length: 100 }) eventType!: string;
  @Property({ type: 'string', length: 20 }) status: Opt<DeliveryStatus> = 'pending';
  @Property({ type: 'integer' }) attemptCount: Opt<number> = 0;
  @Property({ type: 'json', default: "'[]'" }) attempts: Opt<DeliveryAttempt[]> = [];
  @Property({ type: 'datetime', length: 3, nullable: true }) nextAttemptAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) lockedUntil?: Date | null;
  @Property({ type: 'string', length: 60, nullable: true }) lockedBy?: string | null;
}
