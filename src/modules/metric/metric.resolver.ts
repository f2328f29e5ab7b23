import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { MetricType } from './metric.type.js';
import { CreateMetricInput, MetricList, MetricListArgs, UpdateMetricInput } from './metric.inputs.js';
import * as metrics from './metric.service.js';

@Resolver(() => MetricType)
export class MetricResolver extends BusinessOwnedResolver(MetricType) {
  @Authorized('metrics:read')
  @Query(() => MetricList)
  metrics(
    @Arg('business', () => ID) business: string,
    @Args(() => MetricListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return metrics.listMetrics(em, business, args);
  }

  @Authorized('metrics:read')
  @Query(() => MetricType)
  async metric(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return metrics.presentMetric(await metrics.findMetric(em, business, id));
  }

  @Authorized('metrics:write')
  @Mutation(() => MetricType)
  createMetric(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateMetricInput) input: CreateMetricInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return metrics.createMetric(em, business, input);
  }

  @Authorized('metrics:write')
  @Mutation(() => MetricType)
  updateMetric(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateMetricInput) input: UpdateMetricInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return metrics.updateMetric(em, business, id, input);
  }

  @Authorized('metrics:write')
  @Mutation(() => ID, { description: 'CONFLICT, listing the steps, while a survey step rates this metric.' })
  deleteMetric(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return metrics.deleteMetric(em, business, id);
  }
}
