import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { STEP_TYPES, type StepType } from './survey-step.entity.js';
import { MetricType } from '../metric/index.js';
import { ResourceType } from '../../kit/graphql/resource.type.js';

export const StepTypeEnum = Object.fromEntries(STEP_TYPES.map((t) => [t, t])) as { [K in StepType]: K };
registerEnumType(StepTypeEnum, {
  name: 'SurveyStepKind',
  description: 'What a step asks: `metrics` steps rate metrics; `items` steps rate each dish of the linked order (`content.scale`: `thumbs` or `5`).',
});

@ObjectType('StepMetrics', { simpleResolvers: true })
export class StepMetricsType {
  @Field(() => [MetricType], { description: 'In display order.' })
  metrics!: MetricType[];
}

@ObjectType('SurveyStep', { simpleResolvers: true, description: 'One screen of a survey, at a dense position from 0.' })
export class SurveyStepType extends ResourceType {
  business!: string;
  survey!: string;
  metricIds!: string[];

  @Field(() => Int, { description: 'From 0, no gaps.' })
  position!: number;

  @Field(() => StepTypeEnum)
  type!: StepType;

  @Field()
  required!: boolean;

  @Field(() => GraphQLJSONObject, { description: 'Title, body, choices...' })
  content!: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  inputType?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  validation?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Conditional logic (show/skip rules).' })
  logic?: Record<string, unknown> | null;

  /** Filled for a whole answer at once where the answer asks for it (fillStepMetrics); presentStep leaves it out. */
  @Field(() => StepMetricsType, { nullable: true, description: 'Set on `metrics` steps only.' })
  metrics?: StepMetricsType | null;
}
