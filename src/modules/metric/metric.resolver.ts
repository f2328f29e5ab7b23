import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { MetricType } from './metric.type.js';
import { CreateMetricInput, MetricList, MetricListArgs, UpdateMetricInput } from './metric.inputs.js';
import * as metrics from './metric.service.js';

@Resolver(() => MetricType)
export class MetricResolver extends OwnedCrudResolver({
  type: MetricType,
  names: ['metric', 'metrics'],
  list: [MetricList, MetricListArgs],
  inputs: [CreateMetricInput, UpdateMetricInput],
  descriptions: { delete: 'CONFLICT, listing the steps, while a survey step rates this metric.' },
  service: { list: metrics.listMetrics, find: metrics.findMetric, present: metrics.presentMetric, create: metrics.createMetric, update: metrics.updateMetric, delete: metrics.deleteMetric },
}) {}
