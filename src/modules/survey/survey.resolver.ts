import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { loadBusiness } from '../../graphql/resource.js';
import type { ListArgsValue, OrderByValue } from '../../graphql/list.args.js';
import { BusinessType } from '../business/business.type.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep } from './survey-step.service.js';
import { CreateSurveyInput, SurveyList, SurveyListArgs, UpdateSurveyInput } from './survey.inputs.js';
import * as surveys from './survey.service.js';

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

  @FieldResolver(() => BusinessType)
  business(@Root() survey: SurveyType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, survey.business);
  }

  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  async steps(@Root() survey: SurveyType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.stepsBySurvey.load(survey.id)).map(presentStep);
  }
}
