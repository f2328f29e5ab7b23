import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business.resolver.js';
import { AlertRuleType } from './alert-rule.type.js';
import * as inputs from './alert-rule.inputs.js';
import * as rules from './alert-rule.service.js';

@Resolver(() => AlertRuleType)
export class AlertRuleResolver extends OwnedCrudResolver(AlertRuleType, inputs, rules.crud, { names: ['alertRule', 'alertRules'], scope: 'alerts' }) {}
