import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { MetricType } from './metric.type.js';
import { CreateMetricInput, MetricList, MetricListArgs, UpdateMetricInput } from './metric.inputs.js';
import * as metrics from './metric.service.js';

@Resolver(() => MetricType)
export class MetricResolver extends OwnedCrudResolver({
  type: MetricType,
  names: { one: 'metric', many: 'metrics' },
  scopes: { read: 'metrics:read', write: 'metrics:write' },
  list: { type: MetricList, args: MetricListArgs },
  inputs: { create: CreateMetricInput, update: UpdateMetricInput },
  descriptions: { delete: 'CONFLICT, listing the steps, while a survey step rates this metric.' },
  service: {
    list: metrics.listMetrics,
    get: async (em, business, id) => metrics.presentMetric(await metrics.findMetric(em, business, id)),
    create: metrics.createMetric,
    update: metrics.updateMetric,
    delete: metrics.deleteMetric,
  },
}) {}
