import { Field, InputType, Int } from 'type-graphql';
import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { NamedInput } from '../../kit/graphql/named.inputs.js';
import { MetricType } from './metric.type.js';

@InputType('MetricScaleInput')
export class MetricScaleInput {
  @Field(() => Int) min!: number;
  @Field(() => Int) max!: number;
}

@InputType('CreateMetricInput')
export class CreateMetricInput extends NamedInput {
  @Field(() => MetricScaleInput, { nullable: true, description: 'Default 1 to 5.' })
  scale?: MetricScaleInput;
}

export const UpdateMetricInput = updateInputOf('UpdateMetricInput', CreateMetricInput);
export type UpdateMetricInput = InstanceType<typeof UpdateMetricInput>;

export const [MetricList, MetricListArgs] = listInputs('Metric', MetricType, {
  where: { name: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
