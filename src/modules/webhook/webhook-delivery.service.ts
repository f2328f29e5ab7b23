import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { findOwned } from '../../kit/resource/resource.js';
import { findPage } from '../../kit/list/list.query.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { recordEvent } from '../event/index.js';
import { deliveryId, WebhookDelivery } from './webhook-delivery.entity.js';
import type { WebhookDeliveryType, WebhookRecoveryType } from './webhook-delivery.type.js';
import type { RecoverWebhookInput } from './webhook-delivery.inputs.js';
import { findWebhook, presentWebhook } from './webhook.service.js';
import type { Webhook } from './webhook.entity.js';
import { notifyWorkers } from './webhook.repo.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

type DeliveryRow = Pick<
  WebhookDelivery,
  'id' | 'business' | 'webhook' | 'event' | 'eventType' | 'status' | 'attemptCount' | 'attempts' | 'nextAttemptAt' | 'createdAt' | 'updatedAt'
>;

/** Plain rows (findPage) and entities alike; the lease columns stay inside. */
const presentDelivery: (record: DeliveryRow) => WebhookDeliveryType = ownedPresenter('webhookdelivery', [
  'webhook',
  'event',
  'eventType',
  'status',
  'attemptCount',
  'nextAttemptAt',
  'attempts',
]);

async function listDeliveries(em: EntityManager, business: string, webhook: string, args: ListArgsValue<object, OrderByValue>) {
  await findWebhook(em, business, webhook);
  return findPage<WebhookDelivery, WebhookDeliveryType>(em, WebhookDelivery, { scope: { business, webhook }, args, present: presentDelivery });
}

const findDelivery = (em: EntityManager, business: string, webhook: string, id: string) =>
  findOwned(em, WebhookDelivery, { kind: 'webhookDelivery', label: 'WebhookDelivery', business, id, where: { webhook } });

/** Delivery only reaches enabled webhooks: asking a disabled one to send is a conflict, not a silent no-op. */
function assertEnabled(webhook: Webhook) {
  if (!webhook.enabled) throw new AppError('conflict', `Webhook ${webhook.id} is disabled: enable it (enabled: true) first`);
}

/** A new attempt now, with the same `webhook-id`. */
export function redeliver(em: EntityManager, business: string, webhookId: string, id: string): Promise<WebhookDeliveryType> {
  return em.transactional(async (tx) => {
    assertEnabled(await findWebhook(tx, business, webhookId));
    const delivery = await findDelivery(tx, business, webhookId, id);
    delivery.nextAttemptAt = new Date();
    await tx.flush();
    notifyWorkers(tx);
    return presentDelivery(delivery);
  });
}

/** Every failed or exhausted delivery created in [since, until) is sent again now. */
export function recover(em: EntityManager, business: string, webhookId: string, input: RecoverWebhookInput): Promise<WebhookRecoveryType> {
  const until = input.until ?? new Date();
  if (input.since.getTime() > until.getTime()) {
    throw AppError.validation([{ field: 'since', message: 'must not be after until' }]);
  }
  return em.transactional(async (tx) => {
    assertEnabled(await findWebhook(tx, business, webhookId));
    const redelivered = await tx.nativeUpdate(
      WebhookDelivery,
      { business, webhook: webhookId, status: { $in: ['failed', 'exhausted'] }, createdAt: { $gte: input.since, $lt: until } },
      { nextAttemptAt: new Date() },
    );
    if (redelivered) notifyWorkers(tx);
    return { object: 'webhookrecovery', redelivered };
  });
}

/** A `webhook.test` event, sent to this endpoint only (no other webhook receives test events). */
export function sendTest(em: EntityManager, business: string, webhookId: string): Promise<WebhookDeliveryType> {
  return em.transactional(async (tx) => {
    const webhook = await findWebhook(tx, business, webhookId);
    assertEnabled(webhook);
    const event = recordEvent(tx, business, 'webhook.test', presentWebhook(webhook));
    const delivery = tx.create(WebhookDelivery, {
      id: deliveryId(event.id, webhook.id),
      business,
      webhook: webhook.id,
      event: event.id,
      eventType: event.type,
      nextAttemptAt: new Date(),
    });
    await tx.flush();
    notifyWorkers(tx);
    return presentDelivery(delivery);
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listDeliveries, find: findDelivery, present: presentDelivery };
