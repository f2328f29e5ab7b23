import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import type { Parent } from '../../kit/graphql/resource.type.js';
import { OwnedCrudResolver } from '../business/index.js';
import { AlertRecipientType, AlertRuleType } from './alert-rule.type.js';
import * as inputs from './alert-rule.inputs.js';
import * as rules from './alert-rule.service.js';
import { withStatus } from './alert-recipient.service.js';

@Resolver(() => AlertRuleType)
export class AlertRuleResolver extends OwnedCrudResolver(AlertRuleType, inputs, rules.crud, { names: ['alertRule', 'alertRules'], scope: 'alerts' }) {
  @FieldResolver(() => [AlertRecipientType])
  notify(@Root() rule: Parent<AlertRuleType>, @Ctx() { loaders }: GraphQLContext): Promise<AlertRecipientType[]> {
    return withStatus(loaders, rule.business, rule.notify);
  }
}
