import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { WebhookType } from './webhook.type.js';
import { CreateWebhookInput, UpdateWebhookInput, WebhookList, WebhookListArgs } from './webhook.inputs.js';
import * as webhooks from './webhook.service.js';

@Resolver(() => WebhookType)
export class WebhookResolver extends OwnedCrudResolver({
  type: WebhookType,
  names: ['webhook', 'webhooks'],
  list: [WebhookList, WebhookListArgs],
  inputs: [CreateWebhookInput, UpdateWebhookInput],
  descriptions: { create: 'The answer holds the signing secret: the only time it is shown.' },
  service: { list: webhooks.listWebhooks, find: webhooks.findWebhook, present: webhooks.presentWebhook, create: webhooks.createWebhook, update: webhooks.updateWebhook, delete: webhooks.deleteWebhook },
}) {}
