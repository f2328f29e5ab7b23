import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { AppError } from '../../shared/errors.js';
import { Event } from '../event/event.entity.js';
import { presentEvent } from '../event/event.service.js';
import { EventType } from '../event/event.type.js';
import { Webhook } from './webhook.entity.js';
import { WebhookType } from './webhook.type.js';
import { presentWebhook, rotateWebhookSecret } from './webhook.service.js';
import { WebhookDeliveryType, WebhookRecoveryType } from './webhook-delivery.type.js';
import { RecoverWebhookInput, WebhookDeliveryList, WebhookDeliveryListArgs } from './webhook-delivery.inputs.js';
import * as deliveries from './webhook-delivery.service.js';


/** The delivery log of a webhook, and the ways to send again: redeliver, recover, test; and rotating its secret. */
@Resolver(() => WebhookDeliveryType)
export class WebhookDeliveryResolver extends BusinessOwnedResolver(WebhookDeliveryType) {
  @Authorized('webhooks:read')
  @Query(() => WebhookDeliveryList, { description: 'Deliveries of one webhook, newest first.' })
  webhookDeliveries(
    @Arg('business', () => ID) business: string,
    @Arg('webhook', () => ID) webhook: string,
    @Args(() => WebhookDeliveryListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return deliveries.listDeliveries(em, business, webhook, args);
  }

  @Authorized('webhooks:read')
  @Query(() => WebhookDeliveryType)
  async webhookDelivery(
    @Arg('business', () => ID) business: string,
    @Arg('webhook', () => ID) webhook: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return deliveries.presentDelivery(await deliveries.findDelivery(em, business, webhook, id));
  }

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
  async webhook(@Root() delivery: WebhookDeliveryType, @Ctx() ctx: GraphQLContext) {
    const webhook = await ctx.loaders.byId(Webhook).load(delivery.webhook);
    if (!webhook) throw AppError.notFound('Webhook', delivery.webhook);
    return presentWebhook(webhook);
  }

  @FieldResolver(() => EventType)
  async event(@Root() delivery: WebhookDeliveryType, @Ctx() ctx: GraphQLContext) {
    const event = await ctx.loaders.byId(Event).load(delivery.event);
    if (!event) throw AppError.notFound('Event', delivery.event);
    return presentEvent(event);
  }
}


