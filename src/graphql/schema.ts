import 'reflect-metadata';
import { buildSchema } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { HealthResolver } from '../modules/health/index.js';
import { BusinessResolver } from '../modules/business/index.js';
import { SurveyResolver, SurveyStepResolver } from '../modules/survey/index.js';
import { MetricResolver } from '../modules/metric/index.js';
import { LocationResolver } from '../modules/location/index.js';
import { OrderItemResolver, OrderResolver } from '../modules/order/index.js';
import { MenuItemResolver } from '../modules/menu/index.js';
import { OrderSubmissionsResolver, SubmissionResolver } from '../modules/submission/index.js';
import { WebhookResolver, WebhookDeliveryResolver } from '../modules/webhook/index.js';
import { EventResolver } from '../modules/event/index.js';
import { CredentialResolver } from '../modules/oauth/index.js';
import { CustomIntegrationResolver } from '../modules/integration/index.js';
import { MemberResolver, InvitationResolver } from '../modules/member/index.js';
import { AnalyticsResolver } from '../modules/analytics/index.js';
import { FeedbackFlowResolver, FeedbackRequestResolver } from '../modules/flow/index.js';
import { AlertRuleResolver } from '../modules/alert/index.js';
import { CaseResolver, CaseMessageResolver, OfferResolver, ReplyTemplateResolver } from '../modules/case/index.js';
import { SendingBudgetResolver } from '../modules/sending/index.js';
import { TextAnalysisResolver, ThemeSettingsResolver } from '../modules/text/index.js';
import { authChecker } from './auth-checker.js';

/** Every resolver of the service. schema/schema.graphql is printed from this (npm run schema:emit). */
const resolvers = [
  HealthResolver,
  BusinessResolver,
  SurveyResolver,
  SurveyStepResolver,
  MetricResolver,
  LocationResolver,
  OrderResolver,
  OrderItemResolver,
  MenuItemResolver,
  SubmissionResolver,
  OrderSubmissionsResolver,
  WebhookResolver,
  WebhookDeliveryResolver,
  EventResolver,
  CredentialResolver,
  CustomIntegrationResolver,
  MemberResolver,
  InvitationResolver,
  AnalyticsResolver,
  FeedbackFlowResolver,
  FeedbackRequestResolver,
  AlertRuleResolver,
  CaseResolver,
  CaseMessageResolver,
  OfferResolver,
  ReplyTemplateResolver,
  SendingBudgetResolver,
  TextAnalysisResolver,
  ThemeSettingsResolver,
] as const;

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
