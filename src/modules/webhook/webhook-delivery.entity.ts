import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/business-owned.entity.js';
import { Event } from '../event/event.entity.js';
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
 * One event to one webhook, and its job: due when `nextAttemptAt` is set and past, leased to one worker while
 * `lockedUntil` is in the future. Its id is the `webhook-id` header, the same on every retry and redelivery.
 */
@Entity({ tableName: 'webhook_delivery' })
@Index({ name: 'webhook_delivery_webhook_created_idx', properties: ['webhook', 'createdAt', 'id'] })
@Index({ name: 'webhook_delivery_created_idx', properties: ['createdAt'] })
@Unique({ name: 'webhook_delivery_event_webhook_unique', properties: ['event', 'webhook'] })
// The queue's partial indexes: due deliveries per webhook, and leases held.
@Index({
  name: 'webhook_delivery_due_idx',
  expression: 'create index "webhook_delivery_due_idx" on "webhook_delivery" ("webhook_id", "next_attempt_at", "id") where "next_attempt_at" is not null',
})
@Index({ name: 'webhook_delivery_leased_idx', expression: 'create index "webhook_delivery_leased_idx" on "webhook_delivery" ("webhook_id") where "locked_until" is not null' })
export class WebhookDelivery extends BusinessOwnedEntity {
  id = newId('webhookDelivery');

  @ManyToOne(() => Webhook, { mapToPk: true, deleteRule: 'cascade' })
  webhook!: string;

  @ManyToOne(() => Event, { mapToPk: true, deleteRule: 'cascade' })
  event!: string;

  @Property({ type: 'string', length: 100 })
  eventType!: string;

  @Property({ type: 'string', length: 20 })
  status: Opt<DeliveryStatus> = 'pending';

  @Property({ type: 'integer' })
  attemptCount: Opt<number> = 0;

  @Property({ type: 'json', default: "'[]'" })
  attempts: Opt<DeliveryAttempt[]> = [];

  @Property({ type: 'datetime', length: 3, nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: 'datetime', length: 3, nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'string', length: 60, nullable: true })
  lockedBy?: string | null;
}
