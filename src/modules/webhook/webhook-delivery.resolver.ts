import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { loadRequired } from '../../kit/graphql/relation.load.js';
import { NestedCrudResolver } from '../business/index.js';
import { Event, presentEvent, EventType, mayHear } from '../event/index.js';
import { Webhook } from './webhook.entity.js';
import { WebhookType } from './webhook.type.js';
import { presentWebhook, rotateWebhookSecret } from './webhook.service.js';
import { WebhookDeliveryType, WebhookRecoveryType } from './webhook-delivery.type.js';
import * as inputs from './webhook-delivery.inputs.js';
import { RecoverWebhookInput } from './webhook-delivery.inputs.js';
import * as deliveries from './webhook-delivery.service.js';
import type { Parent } from '../../kit/graphql/resource.type.js';

/** The delivery log of a webhook, and the ways to send again: redeliver, recover, test; and rotating its secret. */
@Resolver(() => WebhookDeliveryType)
export class WebhookDeliveryResolver extends NestedCrudResolver('webhook', WebhookDeliveryType, inputs, deliveries.crud, {
  names: ['webhookDelivery', 'webhookDeliveries'],
  scope: 'webhooks',
  descriptions: { list: 'Deliveries of one webhook, newest first.' },
}) {
  @Authorized('webhooks:write')
  @Mutation(() => WebhookDeliveryType, { description: 'A new attempt now, with the same webhook-id.' })
  redeliverWebhookDelivery(
    @Arg('business', () => ID) business: string,
    @Arg('webhook', () => ID) webhook: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return deliveries.redeliver(em, business, webhook, id);
  }

  @Authorized('webhooks:write')
  @Mutation(() => WebhookRecoveryType, { description: 'Sends again every failed or exhausted delivery created in [since, until).' })
  recoverWebhook(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RecoverWebhookInput) input: RecoverWebhookInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return deliveries.recover(em, business, id, input);
  }

  @Authorized('webhooks:write')
  @Mutation(() => WebhookDeliveryType, { description: 'Sends a webhook.test event to this webhook only.' })
  testWebhook(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return deliveries.sendTest(em, business, id);
  }

  @Authorized('webhooks:write')
  @Mutation(() => WebhookType, { description: 'A new signing secret, answered once; for 24 h the old one signs too.' })
  rotateWebhookSecret(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return rotateWebhookSecret(em, business, id);
  }

  @FieldResolver(() => WebhookType)
  webhook(@Root() delivery: Parent<WebhookDeliveryType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRequired(loaders.byId(Webhook), delivery.webhook, 'Webhook', presentWebhook);
  }

  @FieldResolver(() => EventType, {
    nullable: true,
    description:
      'The event sent, payload included; null for a token that may not read it (the read scope of its resource, e.g. orders:read for order.*, or events:read).',
  })
  event(@Root() delivery: Parent<WebhookDeliveryType>, @Ctx() { loaders, auth }: GraphQLContext) {
    // webhooks:read shows the log; the payloads need what live subscriptions need (event.policy.ts).
    if (!auth || !mayHear(auth.scopes, delivery.eventType)) return null;
    return loadRequired(loaders.byId(Event), delivery.event, 'Event', presentEvent);
  }
}
