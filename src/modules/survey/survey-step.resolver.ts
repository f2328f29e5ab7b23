import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { loadRequired } from '../../kit/graphql/relation.load.js';
import { NestedCrudResolver } from '../business/index.js';
import type { Filled } from '../../kit/graphql/owned.resolver.js';
import { presentMetric, Metric, type MetricType } from '../metric/index.js';
import { Survey } from './survey.entity.js';
import { SurveyType } from './survey.type.js';
import { presentSurvey } from './survey.service.js';
import { SurveyStepType } from './survey-step.type.js';
import * as inputs from './survey-step.inputs.js';
import * as steps from './survey-step.service.js';
import type { Parent } from '../../kit/graphql/resource.type.js';

/**
 * Each step's `metrics` (its metric rows in its order, ids that name no metric left out; null on other steps), for a
 * whole answer in one load: a page of surveys asks once for all its steps; surveys reached through other objects ask
 * once each, and DataLoader makes those asks one SELECT. A page rates the same few metrics on every step: each metric is
 * presented once per fill and its steps share it.
 */
async function fillStepMetrics(steps: SurveyStepType[], { loaders }: Pick<GraphQLContext, 'loaders'>): Promise<void> {
  // Each id once: a page names the same few metrics on every step (750 ids, 3 metrics).
  const ids = new Set<string>();
  for (const step of steps) if (step.type === 'metrics') for (const id of step.metricIds) ids.add(id);
  const rows = ids.size ? await loaders.byIds(Metric).load([...ids]) : new Map<string, Metric>();
  // Each metric looked up and presented once here, not once per step that names it.
  const presented = new Map<string, MetricType>();
  for (const id of ids) {
    const row = rows.get(id);
    if (row) presented.set(id, presentMetric(row));
  }
  const named = (id: string) => presented.get(id)!;
  const known = (id: string) => presented.has(id);
  for (const step of steps) {
    if (step.type !== 'metrics') {
      step.metrics = null;
      continue;
    }
    // map makes an array of the exact length; ids that name no metric (deleted since) are rare.
    const ids = step.metricIds;
    step.metrics = { metrics: ids.every(known) ? ids.map(named) : ids.filter(known).map(named) };
  }
}

export const STEP_METRICS: Filled<SurveyStepType> = { fields: ['metrics'], fill: fillStepMetrics };

@Resolver(() => SurveyStepType)
export class SurveyStepResolver extends NestedCrudResolver('survey', SurveyStepType, inputs, steps.crud, {
  names: ['surveyStep', 'surveySteps'],
  scope: 'surveys',
  descriptions: { list: 'Steps of a survey, in position order unless orderBy says otherwise.', delete: 'The steps after it move up one position.' },
  filled: STEP_METRICS,
}) {
  @FieldResolver(() => SurveyType)
  survey(@Root() step: Parent<SurveyStepType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRequired(loaders.byId(Survey), step.survey, 'Survey', presentSurvey);
  }
}
