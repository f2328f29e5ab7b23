import { Field, Int, ObjectType } from 'type-graphql';
import { NamedResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('MetricScale', { simpleResolvers: true, description: 'Inclusive rating range.' })
export class MetricScaleType {
  @Field(() => Int) min!: number;
  @Field(() => Int) max!: number;
}

@ObjectType('Metric', { simpleResolvers: true, description: 'A reusable scoring dimension (food quality, ambiance...) rated on metrics steps.' })
export class MetricType extends NamedResourceType {
  @Field(() => MetricScaleType)
  scale!: MetricScaleType;
}
