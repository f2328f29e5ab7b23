import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { AppError } from '../../shared/errors.js';
import { presentMetric } from '../metric/metric.service.js';
import { Metric } from '../metric/metric.entity.js';
import type { MetricType } from '../metric/metric.type.js';
import { Survey } from './survey.entity.js';
import { SurveyType } from './survey.type.js';
import { presentSurvey } from './survey.service.js';
import { StepMetricsType, SurveyStepType } from './survey-step.type.js';
import { CreateSurveyStepInput, SurveyStepList, SurveyStepListArgs, UpdateSurveyStepInput } from './survey-step.inputs.js';
import * as steps from './survey-step.service.js';

/** Rows are the request's own (plain loader rows): the presentation lives as long as the row. */
const presentedMetrics = new WeakMap<Metric, MetricType>();
function presentedMetric(row: Metric): MetricType {
  let presented = presentedMetrics.get(row);
  if (!presented) presentedMetrics.set(row, (presented = presentMetric(row)));
  return presented;
}

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
    // load() per id rather than loadMany (which wraps every key's promise in a catch): the batch fails whole or not
    // at all, and unknown ids come back null. A page rates the same few metrics on every step: each row is
    // presented once per request and the answer shares it.
    const loader = loaders.byId(Metric, { plain: true });
    const metrics = await Promise.all(step.metricIds.map((id) => loader.load(id)));
    return { metrics: metrics.filter((m): m is Metric => !!m).map(presentedMetric) };
  }
}
