import { Field, InputType, Int } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { MetricType } from './metric.type.js';

@InputType('MetricScaleInput')
export class MetricScaleInput {
  @Field(() => Int) min!: number;
  @Field(() => Int) max!: number;
}

@InputType('CreateMetricInput')
export class CreateMetricInput {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => MetricScaleInput, { nullable: true, description: 'Default 1 to 5.' })
  scale?: MetricScaleInput;
}

@InputType('UpdateMetricInput')
export class UpdateMetricInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => MetricScaleInput, { nullable: true })
  scale?: MetricScaleInput;
}

@InputType('MetricWhere')
export class MetricWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) name?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const MetricOrderBy = orderByInput('MetricOrderBy', { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' });
export const MetricListArgs = listArgs(MetricWhere, MetricOrderBy);
export const MetricList = listType(MetricType, 'MetricList');
