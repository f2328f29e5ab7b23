import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { SURVEY_STATUSES, type SurveyStatus } from './survey.entity.js';
import { NamedResourceType } from '../../kit/graphql/resource.type.js';
import type { SurveyStepType } from './survey-step.type.js';

export const SurveyStatusEnum = Object.fromEntries(SURVEY_STATUSES.map((s) => [s, s])) as { [K in SurveyStatus]: K };
registerEnumType(SurveyStatusEnum, { name: 'SurveyStatus' });

@ObjectType('Survey', { simpleResolvers: true, description: 'A feedback form: ordered steps.' })
export class SurveyType extends NamedResourceType {
  @Field(() => SurveyStatusEnum)
  status!: SurveyStatus;

  @Field(() => String, { nullable: true, description: "The thank-you screen's text on the survey page." })
  closingText?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'A "review us" link on the thank-you screen, shown to every guest (selective review requests break review sites\' rules).',
  })
  reviewUrl?: string | null;

  @Field(() => [String], {
    nullable: true,
    description: 'The languages its guest page offers, the first the default (en, ur); null: every language the page has.',
  })
  languages?: string[] | null;

  /** Filled for a whole answer at once where the answer asks for them (SURVEY_STEPS); the `steps` field resolves them. */
  steps?: SurveyStepType[];
}
