import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { ReplyTemplateType } from './reply-template.type.js';
import * as inputs from './reply-template.inputs.js';
import * as templates from './reply-template.service.js';

@Resolver(() => ReplyTemplateType)
export class ReplyTemplateResolver extends OwnedCrudResolver(ReplyTemplateType, inputs, templates.crud, {
  names: ['replyTemplate', 'replyTemplates'],
  scope: 'cases',
}) {}
