import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { SurveyType } from './survey.type.js';
import { SurveyStepType } from './survey-step.type.js';
import { presentStep } from './survey-step.service.js';
import { SurveyStep } from './survey-step.entity.js';
import { CreateSurveyInput, SurveyList, SurveyListArgs, UpdateSurveyInput } from './survey.inputs.js';
import * as surveys from './survey.service.js';

@Resolver(() => SurveyType)
export class SurveyResolver extends BusinessOwnedResolver(SurveyType) {
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

  @FieldResolver(() => [SurveyStepType], { description: 'In position order.' })
  async steps(@Root() survey: SurveyType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(SurveyStep, 'survey', { orderBy: [{ position: 'asc' }, { id: 'asc' }], plain: true }).load(survey.id)).map(presentStep);
  }
}
