import 'reflect-metadata';
import { buildSchema } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { HealthResolver } from '../modules/health/health.resolver.js';
import { BusinessResolver } from '../modules/business/business.resolver.js';
import { SurveyResolver } from '../modules/survey/survey.resolver.js';
import { SurveyStepResolver } from '../modules/survey/survey-step.resolver.js';
import { MetricResolver } from '../modules/metric/metric.resolver.js';
import { LocationResolver } from '../modules/location/location.resolver.js';
import { OrderItemResolver, OrderResolver } from '../modules/order/order.resolver.js';
import { MenuItemResolver } from '../modules/menu/menu-item.resolver.js';
import { OrderSubmissionsResolver, SubmissionResolver } from '../modules/submission/submission.resolver.js';
import { WebhookResolver } from '../modules/webhook/webhook.resolver.js';
import { WebhookDeliveryResolver } from '../modules/webhook/webhook-delivery.resolver.js';
import { EventResolver } from '../modules/event/event.resolver.js';
import { CredentialResolver } from '../modules/oauth/credential.resolver.js';
import { CustomIntegrationResolver } from '../modules/integration/integration.resolver.js';
import { MemberResolver } from '../modules/member/member.resolver.js';
import { InvitationResolver } from '../modules/member/invitation.resolver.js';
import { AnalyticsResolver } from '../modules/analytics/analytics.resolver.js';
import { FeedbackFlowResolver, FeedbackRequestResolver } from '../modules/flow/feedback-flow.resolver.js';
import { AlertRuleResolver } from '../modules/alert/alert-rule.resolver.js';
import { CaseResolver } from '../modules/case/case.resolver.js';
import { CaseMessageResolver } from '../modules/case/case-message.resolver.js';
import { OfferResolver } from '../modules/case/offer.resolver.js';
import { ReplyTemplateResolver } from '../modules/case/reply-template.resolver.js';
import { SendingBudgetResolver } from '../modules/sending/sending-budget.resolver.js';
import { TextAnalysisResolver } from '../modules/text/text-analysis.resolver.js';
import { ThemeSettingsResolver } from '../modules/text/theme-settings.resolver.js';
import { authChecker } from './auth-checker.js';

/** Every resolver of the service. schema/schema.graphql is printed from this (npm run schema:emit). */
export const resolvers = [HealthResolver, BusinessResolver, SurveyResolver, SurveyStepResolver, MetricResolver, LocationResolver, OrderResolver, OrderItemResolver, MenuItemResolver, SubmissionResolver, OrderSubmissionsResolver, WebhookResolver, WebhookDeliveryResolver, EventResolver, CredentialResolver, CustomIntegrationResolver, MemberResolver, InvitationResolver, AnalyticsResolver, FeedbackFlowResolver, FeedbackRequestResolver, AlertRuleResolver, CaseResolver, CaseMessageResolver, OfferResolver, ReplyTemplateResolver, SendingBudgetResolver, TextAnalysisResolver, ThemeSettingsResolver] as const;

let built: Promise<GraphQLSchema> | undefined;

/**
 * TypeGraphQL asks for a PubSub as soon as there is a subscription, though each of ours brings its own source
 * (`subscribe`: the event feed, fed by PostgreSQL's NOTIFY from every process). None is used; using it is a bug.
 */
const NO_PUBSUB = {
  publish: () => {
    throw new Error('no PubSub: subscriptions bring their own source');
  },
  subscribe: () => {
    throw new Error('no PubSub: subscriptions bring their own source');
  },
};

/** Built once per process: building is the costly part of start-up and the result never changes. */
export function buildAppSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({ resolvers: [...resolvers], authChecker, authMode: 'error', validate: false, pubSub: NO_PUBSUB });
  return built;
}
