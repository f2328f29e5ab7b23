import { Field, InputType } from 'type-graphql';
import { listArgs, orderByInput, listType, StringFilter, TimestampFilter, IDFilter } from '../../kit/list.args.js';
import type { SurveyStatus } from './survey.entity.js';
import { SurveyStatusEnum, SurveyType } from './survey.type.js';

@InputType('CreateSurveyInput')
export class CreateSurveyInput {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => SurveyStatusEnum, { nullable: true, description: 'Default draft.' })
  status?: SurveyStatus;

  @Field(() => String, { nullable: true })
  closingText?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) address.' })
  reviewUrl?: string | null;
}

@InputType('UpdateSurveyInput')
export class UpdateSurveyInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => SurveyStatusEnum, { nullable: true })
  status?: SurveyStatus;

  @Field(() => String, { nullable: true })
  closingText?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) address; null removes it.' })
  reviewUrl?: string | null;
}

@InputType('SurveyWhere')
export class SurveyWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) name?: StringFilter;
  @Field(() => StringFilter, { nullable: true }) status?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const SurveyOrderBy = orderByInput('SurveyOrderBy', {
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  name: 'name',
  status: 'status',
});

export const SurveyListArgs = listArgs(SurveyWhere, SurveyOrderBy);
export const SurveyList = listType(SurveyType, 'SurveyList');
