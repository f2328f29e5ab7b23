import type { TimePartitioning } from '../../kit/db/time-partitions.js';
import { DELIVERY_RETENTION_DAYS } from '../../config.js';
import { hasDeliveriesInRetry } from './webhook.repo.js';

/**
 * The delivery log ages out a week at a time, DELIVERY_RETENTION_DAYS (30) after its newest delivery's event. A delivery's id carries its
 * event's time (deliveryId), so a week of deliveries goes before the week of events they show; and a week holding a
 * delivery still being retried for an enabled webhook waits for it (a disabled webhook's waiting deliveries go).
 */
export const deliveryPartitioning: TimePartitioning = {
  table: 'webhook_delivery',
  kind: 'webhookDelivery',
  retentionDays: DELIVERY_RETENTION_DAYS,
  refersTo: 'event',
  stillNeeded: hasDeliveriesInRetry,
};
