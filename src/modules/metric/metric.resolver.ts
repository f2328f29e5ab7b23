import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { MetricType } from './metric.type.js';
import * as inputs from './metric.inputs.js';
import * as metrics from './metric.service.js';

@Resolver(() => MetricType)
export class MetricResolver extends OwnedCrudResolver(MetricType, inputs, metrics.crud, {
  names: ['metric', 'metrics'],
  descriptions: { delete: 'CONFLICT, listing the steps, while a survey step rates this metric.' },
}) {}
