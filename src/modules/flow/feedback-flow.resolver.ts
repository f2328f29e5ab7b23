import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { BusinessOwnedResolver, OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { FeedbackFlowSimulationType, FeedbackFlowType, FeedbackRequestType, FeedbackSuppressionType } from './feedback-flow.type.js';
import {
  CreateFeedbackFlowInput,
  FeedbackFlowList,
  FeedbackFlowListArgs,
  FeedbackRequestList,
  FeedbackRequestListArgs,
  SimulateFeedbackFlowInput,
  SuppressFeedbackContactInput,
  UpdateFeedbackFlowInput,
} from './feedback-flow.inputs.js';
import * as flows from './feedback-flow.service.js';
import * as requests from './feedback-request.service.js';

@Resolver(() => FeedbackFlowType)
export class FeedbackFlowResolver extends OwnedCrudResolver({
  type: FeedbackFlowType,
  names: ['feedbackFlow', 'feedbackFlows'],
  scope: 'flows',
  list: [FeedbackFlowList, FeedbackFlowListArgs],
  inputs: [CreateFeedbackFlowInput, UpdateFeedbackFlowInput],
  service: { list: flows.listFlows, find: flows.findFlow, present: flows.presentFlow, create: flows.createFlow, update: flows.updateFlow, delete: flows.deleteFlow },
}) {
  @Authorized('flows:write')
  @Mutation(() => FeedbackFlowSimulationType, { description: 'A dry run of the flow on an order (an id or order fields): nothing is stored or sent.' })
  simulateFeedbackFlow(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => SimulateFeedbackFlowInput) input: SimulateFeedbackFlowInput,
    @Ctx() { em, surveyUrl }: GraphQLContext,
  ) {
    return flows.simulateFlow(em, business, id, input.order, surveyUrl);
  }

  @Authorized('flows:write')
  @Mutation(() => [FeedbackSuppressionType], { description: 'Adds an e-mail address and/or phone number to the opt-out list (stored as hashes).' })
  suppressFeedbackContact(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => SuppressFeedbackContactInput) input: SuppressFeedbackContactInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return requests.suppressContact(em, business, input);
  }
}

@Resolver(() => FeedbackRequestType)
export class FeedbackRequestResolver extends BusinessOwnedResolver(FeedbackRequestType) {
  @Authorized('flows:read')
  @Query(() => FeedbackRequestList, { description: 'Feedback requests, newest first; filter on status, order, flow.' })
  feedbackRequests(@Arg('business', () => ID) business: string, @Args(() => FeedbackRequestListArgs) args: ListArgsValue<object, OrderByValue>, @Ctx() { em }: GraphQLContext) {
    return requests.listRequests(em, business, args);
  }

  @Authorized('flows:read')
  @Query(() => FeedbackRequestType)
  async feedbackRequest(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return requests.presentRequest(await requests.findRequest(em, business, id));
  }
}
