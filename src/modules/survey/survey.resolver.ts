import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, registerEnumType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { loadBusiness } from '../../graphql/resource.js';
import type { ListArgsValue, OrderByValue } from '../../graphql/list.args.js';
import { BusinessType } from '../business/business.type.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep } from './survey-step.service.js';
import { CreateSurveyInput, SurveyList, SurveyListArgs, UpdateSurveyInput } from './survey.inputs.js';
import * as surveys from './survey.service.js';
import { LINK_CHANNELS, surveyLink, surveyUrl } from './survey-link.js';

export const LinkChannelEnum = Object.fromEntries(LINK_CHANNELS.map((c) => [c, c])) as { [K in (typeof LINK_CHANNELS)[number]]: K };
registerEnumType(LinkChannelEnum, { name: 'LinkChannel', description: "How a guest gets a survey link: the link's `ch`, recorded on the submission." });

@Resolver(() => SurveyType)
export class SurveyResolver {
  @Authorized('surveys:read')
  @Query(() => SurveyList, { description: 'Surveys of a business.' })
  surveys(
    @Arg('business', () => ID) business: string,
    @Args(() => SurveyListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return surveys.listSurveys(em, business, args);
  }

  @Authorized('surveys:read')
  @Query(() => SurveyType)
  async survey(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return surveys.presentSurvey(await surveys.findSurvey(em, business, id));
  }

  @Authorized('surveys:write')
  @Mutation(() => SurveyType)
  createSurvey(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateSurveyInput) input: CreateSurveyInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return surveys.createSurvey(em, business, input);
  }

  @Authorized('surveys:write')
  @Mutation(() => SurveyType)
  updateSurvey(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateSurveyInput) input: UpdateSurveyInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return surveys.updateSurvey(em, business, id, input);
  }

  @Authorized('surveys:write')
  @Mutation(() => ID, { description: 'Deletes the survey and its steps; submissions keep their answers.' })
  deleteSurvey(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return surveys.deleteSurvey(em, business, id);
  }

  @Authorized('surveys:read')
  @Query(() => String, { description: "A link to the survey page with spec 4.9's parameters for a location, an order and a channel." })
  surveyLink(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('location', () => ID, { nullable: true }) location: string | null,
    @Arg('orderId', () => ID, { nullable: true }) orderId: string | null,
    @Arg('channel', () => LinkChannelEnum, { nullable: true }) channel: string | null,
    @Ctx() { em, surveyUrl: base }: GraphQLContext,
  ) {
    return surveyLink(em, base, business, survey, { location, orderId, channel });
  }

  @FieldResolver(() => String, { description: 'The survey page guests answer it on (SURVEY_URL/survey/{business}/{survey}); only active surveys take answers.' })
  url(@Root() s: SurveyType, @Ctx() ctx: GraphQLContext) {
    return surveyUrl(ctx.surveyUrl, s.business, s.id);
  }

  @FieldResolver(() => BusinessType)
  business(@Root() survey: SurveyType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, survey.business);
  }

  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  async steps(@Root() survey: SurveyType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.stepsBySurvey.load(survey.id)).map(presentStep);
  }
}
