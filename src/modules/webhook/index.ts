/** The webhook module's door: what other modules and the doors use of it. Its other files are its own. */
export { deliveryPartitioning } from './webhook-delivery-partitions.rules.js';
export { WebhookDeliveryResolver } from './webhook-delivery.resolver.js';
export { DELIVERY_LIMITS, WebhookDeliveryTask } from './webhook-delivery.task.js';
export type { ClaimedDelivery, Lanes } from './webhook-delivery.task.js';
export { DELIVERIES_DUE_CHANNEL, dueDeliveries, fanOutDue, nextDeliveryDue } from './webhook.repo.js';
export { WebhookResolver } from './webhook.resolver.js';
