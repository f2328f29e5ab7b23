import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { AppError } from '../../shared/errors.js';
import { presentMetric } from '../metric/metric.service.js';
import { Metric } from '../metric/metric.entity.js';
import { Survey } from './survey.entity.js';
import { SurveyType } from './survey.type.js';
import { presentSurvey } from './survey.service.js';
import { StepMetricsType, SurveyStepType } from './survey-step.type.js';
import { CreateSurveyStepInput, SurveyStepList, SurveyStepListArgs, UpdateSurveyStepInput } from './survey-step.inputs.js';
import * as steps from './survey-step.service.js';

@Resolver(() => SurveyStepType)
export class SurveyStepResolver extends BusinessOwnedResolver(SurveyStepType) {
  @Authorized('surveys:read')
  @Query(() => SurveyStepList, { description: 'Steps of a survey, in position order unless orderBy says otherwise.' })
  surveySteps(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Args(() => SurveyStepListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return steps.listSteps(em, business, survey, args);
  }

  @Authorized('surveys:read')
  @Query(() => SurveyStepType)
  async surveyStep(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return steps.presentStep(await steps.findStep(em, business, survey, id));
  }

  @Authorized('surveys:write')
  @Mutation(() => SurveyStepType)
  createSurveyStep(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('input', () => CreateSurveyStepInput) input: CreateSurveyStepInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return steps.createStep(em, business, survey, input);
  }

  @Authorized('surveys:write')
  @Mutation(() => SurveyStepType)
  updateSurveyStep(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateSurveyStepInput) input: UpdateSurveyStepInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return steps.updateStep(em, business, survey, id, input);
  }

  @Authorized('surveys:write')
  @Mutation(() => ID, { description: 'The steps after it move up one position.' })
  deleteSurveyStep(
    @Arg('business', () => ID) business: string,
    @Arg('survey', () => ID) survey: string,
    @Arg('id', () => ID) id: string,
    @Ctx() { em }: GraphQLContext,
  ) {
    return steps.deleteStep(em, business, survey, id);
  }

  @FieldResolver(() => SurveyType)
  async survey(@Root() step: SurveyStepType, @Ctx() { loaders }: GraphQLContext) {
    const survey = await loaders.byId(Survey, { plain: true }).load(step.survey);
    if (!survey) throw AppError.notFound('Survey', step.survey);
    return presentSurvey(survey);
  }

  @FieldResolver(() => StepMetricsType, { nullable: true, description: 'Set on `metrics` steps only.' })
  async metrics(@Root() step: SurveyStepType, @Ctx() { loaders }: GraphQLContext): Promise<StepMetricsType | null> {
    if (step.type !== 'metrics') return null;
    const metrics = await loaders.byId(Metric, { plain: true }).loadMany(step.metricIds);
    return { metrics: metrics.filter((m): m is Metric => !!m && !(m instanceof Error)).map(presentMetric) };
  }
}
