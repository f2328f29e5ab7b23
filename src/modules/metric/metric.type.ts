import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Timestamp } from '../../graphql/scalars.js';

@ObjectType('MetricScale', { description: 'Inclusive rating range.' })
export class MetricScaleType {
  @Field(() => Int) min!: number;
  @Field(() => Int) max!: number;
}

@ObjectType('Metric', { description: 'A reusable scoring dimension (food quality, ambiance...) rated on metrics steps.' })
export class MetricType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "metric".' })
  object!: string;

  business!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => MetricScaleType)
  scale!: MetricScaleType;

  @Field(() => Timestamp)
  createdAt!: Date;

  @Field(() => Timestamp)
  updatedAt!: Date;
}
