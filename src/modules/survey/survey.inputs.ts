import { Field, InputType } from 'type-graphql';
import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { NamedInput } from '../../kit/graphql/named.inputs.js';
import type { SurveyStatus } from './survey.entity.js';
import { SurveyStatusEnum, SurveyType } from './survey.type.js';

@InputType('CreateSurveyInput')
export class CreateSurveyInput extends NamedInput {
  @Field(() => SurveyStatusEnum, { nullable: true, description: 'Default draft.' })
  status?: SurveyStatus;

  @Field(() => String, { nullable: true })
  closingText?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) address.' })
  reviewUrl?: string | null;

  @Field(() => [String], { nullable: true, description: 'The languages its guest page offers, the first the default (en, ur); omitted or null: every one.' })
  languages?: string[] | null;
}

export const UpdateSurveyInput = updateInputOf('UpdateSurveyInput', CreateSurveyInput, {
  descriptions: {
    reviewUrl: 'An http(s) address; null removes it.',
    languages: 'The languages its guest page offers, the first the default (en, ur); null: every one.',
  },
});
export type UpdateSurveyInput = InstanceType<typeof UpdateSurveyInput>;

export const [SurveyList, SurveyListArgs] = listInputs('Survey', SurveyType, {
  where: { name: StringFilter, status: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'name', 'status'],
});
