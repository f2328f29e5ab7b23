import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { SurveyType } from '../survey/survey.type.js';
import { presentSurvey } from '../survey/survey.service.js';
import { OrderType } from '../order/order.type.js';
import { presentOrder } from '../order/order.presenter.js';
import { LocationType } from '../location/location.type.js';
import { presentLocation } from '../location/location.service.js';
import { SubmissionType } from './submission.type.js';
import { Submission } from './submission.entity.js';
import { Survey } from '../survey/survey.entity.js';
import { Order } from '../order/order.entity.js';
import { Location } from '../location/location.entity.js';
import { CreateSubmissionInput, SubmissionList, SubmissionListArgs, UpdateSubmissionInput } from './submission.inputs.js';
import * as submissions from './submission.service.js';

@Resolver(() => SubmissionType)
export class SubmissionResolver extends BusinessOwnedResolver(SubmissionType) {
  @Authorized('submissions:read')
  @Query(() => SubmissionList)
  submissions(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Args(() => SubmissionListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return submissions.listSubmissions(em, business, survey, args);
  }

  @Authorized('submissions:read')
  @Query(() => SubmissionType)
  async submission(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return submissions.presentSubmission(await submissions.findSubmission(em, business, survey, id));
  }

  @Authorized('submissions:write')
  @Mutation(() => SubmissionType, { description: "Answers are checked against the survey's steps; link parameters as spec 4.9." })
  createSubmission(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('input', () => CreateSubmissionInput) input: CreateSubmissionInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return submissions.createSubmission(em, business, survey, input);
  }

  @Authorized('submissions:write')
  @Mutation(() => SubmissionType)
  updateSubmission(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateSubmissionInput) input: UpdateSubmissionInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return submissions.updateSubmission(em, business, survey, id, input);
  }

  @Authorized('submissions:write')
  @Mutation(() => ID)
  deleteSubmission(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return submissions.deleteSubmission(em, business, survey, id);
  }

  @FieldResolver(() => SurveyType, { nullable: true, description: 'null once the survey is deleted.' })
  async survey(@Root() s: SubmissionType, @Ctx() { loaders }: GraphQLContext) {
    const survey = s.surveyId ? await loaders.byId(Survey, { plain: true }).load(s.surveyId) : null;
    return survey ? presentSurvey(survey) : null;
  }

  @Authorized('orders:read')
  @FieldResolver(() => OrderType, { nullable: true, description: 'Needs orders:read.' })
  async order(@Root() s: SubmissionType, @Ctx() { loaders }: GraphQLContext) {
    const order = s.orderId ? await loaders.byId(Order).load(s.orderId) : null;
    return order ? presentOrder(order) : null;
  }

  @Authorized('locations:read')
  @FieldResolver(() => LocationType, { nullable: true, description: 'Needs locations:read.' })
  async location(@Root() s: SubmissionType, @Ctx() { loaders }: GraphQLContext) {
    const location = s.locationId ? await loaders.byId(Location).load(s.locationId) : null;
    return location ? presentLocation(location) : null;
  }
}

@Resolver(() => OrderType)
export class OrderSubmissionsResolver {
  @Authorized('submissions:read')
  @FieldResolver(() => [SubmissionType], { description: 'Feedback linked to this order, newest first. Needs submissions:read.' })
  async submissions(@Root() order: OrderType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(Submission, 'order', { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }).load(order.id)).map(submissions.presentSubmission);
  }
}
