import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { WebhookType } from './webhook.type.js';
import { CreateWebhookInput, UpdateWebhookInput, WebhookList, WebhookListArgs } from './webhook.inputs.js';
import * as webhooks from './webhook.service.js';

@Resolver(() => WebhookType)
export class WebhookResolver extends BusinessOwnedResolver(WebhookType) {
  @Authorized('webhooks:read')
  @Query(() => WebhookList)
  webhooks(
    @Arg('business', () => ID) business: string,
    @Args(() => WebhookListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return webhooks.listWebhooks(em, business, args);
  }

  @Authorized('webhooks:read')
  @Query(() => WebhookType)
  async webhook(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return webhooks.presentWebhook(await webhooks.findWebhook(em, business, id));
  }

  @Authorized('webhooks:write')
  @Mutation(() => WebhookType, { description: 'The answer holds the signing secret: the only time it is shown.' })
  createWebhook(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return webhooks.createWebhook(em, business, input);
  }

  @Authorized('webhooks:write')
  @Mutation(() => WebhookType)
  updateWebhook(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookInput) input: UpdateWebhookInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return webhooks.updateWebhook(em, business, id, input);
  }

  @Authorized('webhooks:write')
  @Mutation(() => ID)
  deleteWebhook(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return webhooks.deleteWebhook(em, business, id);
  }
}
