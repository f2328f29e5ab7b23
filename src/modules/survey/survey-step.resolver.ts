import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { loadRequired } from '../../kit/relation.load.js';
import { NestedCrudResolver } from '../business/business-owned.resolver.js';
import { presentMetric } from '../metric/metric.service.js';
import { Metric } from '../metric/metric.entity.js';
import type { MetricType } from '../metric/metric.type.js';
import { Survey } from './survey.entity.js';
import { SurveyType } from './survey.type.js';
import { presentSurvey } from './survey.service.js';
import { StepMetricsType, SurveyStepType } from './survey-step.type.js';
import * as inputs from './survey-step.inputs.js';
import * as steps from './survey-step.service.js';

/** Rows are the request's own (plain loader rows): the presentation lives as long as the row. */
const presentedMetrics = new WeakMap<Metric, MetricType>();
function presentedMetric(row: Metric): MetricType {
  let presented = presentedMetrics.get(row);
  if (!presented) presentedMetrics.set(row, (presented = presentMetric(row)));
  return presented;
}

@Resolver(() => SurveyStepType)
export class SurveyStepResolver extends NestedCrudResolver('survey', SurveyStepType, inputs, steps.crud, {
  names: ['surveyStep', 'surveySteps'],
  scope: 'surveys',
  descriptions: { list: 'Steps of a survey, in position order unless orderBy says otherwise.', delete: 'The steps after it move up one position.' },
}) {
  @FieldResolver(() => SurveyType)
  survey(@Root() step: SurveyStepType, @Ctx() { loaders }: GraphQLContext) {
    return loadRequired(loaders.byId(Survey, { plain: true }), step.survey, 'Survey', presentSurvey);
  }

  @FieldResolver(() => StepMetricsType, { nullable: true, description: 'Set on `metrics` steps only.' })
  metrics(@Root() step: SurveyStepType, @Ctx() { loaders }: GraphQLContext): StepMetricsType | null | Promise<StepMetricsType> {
    // Not async: the other steps answer null at once, not a promise the executor has to wait for. One load per step
    // (its list of metrics); a page rates the same few metrics on every step: each row is presented once per request
    // and the answers share it.
    if (step.type !== 'metrics') return null;
    return loaders.byIds(Metric, { plain: true }).load(step.metricIds).then((rows) => ({ metrics: rows.map(presentedMetric) }));
  }
}
