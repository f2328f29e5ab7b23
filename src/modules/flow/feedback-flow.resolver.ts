import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { OwnedCrudResolver } from '../business/index.js';
import { FeedbackFlowDefaultsType, FeedbackFlowSimulationType, FeedbackFlowType, FeedbackRequestType, FeedbackSuppressionType } from './feedback-flow.type.js';
import { FLOW_DEFAULTS } from './feedback-flow.rules.js';
import * as inputs from './feedback-flow.inputs.js';
import * as flows from './feedback-flow.service.js';
import * as requests from './feedback-request.service.js';

@Resolver(() => FeedbackFlowType)
export class FeedbackFlowResolver extends OwnedCrudResolver(FeedbackFlowType, inputs, flows.crud, {
  names: ['feedbackFlow', 'feedbackFlows'],
  scope: 'flows',
}) {
  @Authorized('flows:read')
  @Query(() => [String], {
    description:
      "The channels feedback requests can go by on this service: email with an SMTP server configured, sms with Twilio or an SMS gateway (a flow's other channels are skipped at send time).",
  })
  feedbackChannels(@Arg('business', () => ID) _business: string, @Ctx() { services }: GraphQLContext): string[] {
    return (['email', 'sms'] as const).filter((c) => services.senders[c]);
  }

  @Authorized('flows:read')
  @Query(() => FeedbackFlowDefaultsType, {
    description: "What a new flow gets for each setting its creator leaves out (the portal's new flow starts from them).",
  })
  feedbackFlowDefaults(@Arg('business', () => ID) _business: string): FeedbackFlowDefaultsType {
    return { ...FLOW_DEFAULTS, quietHours: { ...FLOW_DEFAULTS.quietHours, timeZone: null } };
  }

  @Authorized('flows:write')
  @Mutation(() => FeedbackFlowSimulationType, { description: 'A dry run of the flow on an order (an id or order fields): nothing is stored or sent.' })
  simulateFeedbackFlow(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => inputs.SimulateFeedbackFlowInput) input: inputs.SimulateFeedbackFlowInput,
    @Ctx() { em, surveyUrl }: GraphQLContext,
  ) {
    return flows.simulateFlow(em, business, id, input.order, surveyUrl);
  }

  @Authorized('flows:write')
  @Mutation(() => [FeedbackSuppressionType], { description: 'Adds an e-mail address and/or phone number to the opt-out list (stored as hashes).' })
  suppressFeedbackContact(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => inputs.SuppressFeedbackContactInput) input: inputs.SuppressFeedbackContactInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return requests.suppressContact(em, business, input);
  }
}

@Resolver(() => FeedbackRequestType)
export class FeedbackRequestResolver extends OwnedCrudResolver(FeedbackRequestType, inputs, requests.crud, {
  names: ['feedbackRequest', 'feedbackRequests'],
  scope: 'flows',
  descriptions: { list: 'Feedback requests, newest first; filter on status, order, flow.' },
}) {}
