import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { WebhookType } from './webhook.type.js';
import { CreateWebhookInput, UpdateWebhookInput, WebhookList, WebhookListArgs } from './webhook.inputs.js';
import * as webhooks from './webhook.service.js';

@Resolver(() => WebhookType)
export class WebhookResolver extends OwnedCrudResolver({
  type: WebhookType,
  names: { one: 'webhook', many: 'webhooks' },
  scopes: { read: 'webhooks:read', write: 'webhooks:write' },
  list: { type: WebhookList, args: WebhookListArgs },
  inputs: { create: CreateWebhookInput, update: UpdateWebhookInput },
  descriptions: { create: 'The answer holds the signing secret: the only time it is shown.' },
  service: {
    list: webhooks.listWebhooks,
    get: async (em, business, id) => webhooks.presentWebhook(await webhooks.findWebhook(em, business, id)),
    create: webhooks.createWebhook,
    update: webhooks.updateWebhook,
    delete: webhooks.deleteWebhook,
  },
}) {}
