import { Field, ID, InputType, Int } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { BooleanFilter, NumberFilter, SortOrder, StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import type { StepType } from './survey-step.entity.js';
import { StepTypeEnum, SurveyStepType } from './survey-step.type.js';

@InputType('StepMetricsInput')
export class StepMetricsInput {
  @Field(() => [ID], { description: 'Metric ids of the same business, in display order.' })
  metrics!: string[];
}

@InputType('CreateSurveyStepInput')
export class CreateSurveyStepInput {
  @Field(() => StepTypeEnum)
  type!: StepType;

  @Field(() => Int, { nullable: true, description: 'Where to insert (others shift down); default: at the end.' })
  position?: number;

  @Field(() => Boolean, { nullable: true })
  required?: boolean;

  @Field(() => GraphQLJSONObject, { nullable: true })
  content?: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  inputType?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'minLength, maxLength, min, max (numbers), pattern.' })
  validation?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  logic?: Record<string, unknown> | null;

  @Field(() => StepMetricsInput, { nullable: true, description: 'Required for `metrics` steps, refused otherwise.' })
  metrics?: StepMetricsInput;
}

export const UpdateSurveyStepInput = updateInputOf('UpdateSurveyStepInput', CreateSurveyStepInput, {
  descriptions: { position: 'Moves the step; the others close up around it.' },
});
export type UpdateSurveyStepInput = InstanceType<typeof UpdateSurveyStepInput>;

export const [SurveyStepList, SurveyStepListArgs] = listInputs('SurveyStep', SurveyStepType, {
  where: { type: StringFilter, required: BooleanFilter, position: NumberFilter, updatedAt: TimestampFilter },
  orderBy: ['position', 'createdAt', 'updatedAt', 'type'],
});
export const STEP_DEFAULT_ORDER = [{ field: 'position', order: SortOrder.asc }];
