import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { WebhookType } from './webhook.type.js';
import * as inputs from './webhook.inputs.js';
import * as webhooks from './webhook.service.js';

@Resolver(() => WebhookType)
export class WebhookResolver extends OwnedCrudResolver(WebhookType, inputs, webhooks.crud, {
  names: ['webhook', 'webhooks'],
  descriptions: { create: 'The answer holds the signing secret: the only time it is shown.' },
}) {}
