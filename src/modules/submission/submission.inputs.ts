import { Field, ID, InputType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { IDFilter, NumberFilter, StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { SubmissionType } from './submission.type.js';

@InputType('AnswerInput')
export class AnswerInput {
  @Field(() => ID) step!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'A string, a number or an array of strings.' }) value?: unknown;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'metric id -> rating, for metrics steps.' }) ratings?: Record<string, unknown>;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: "menu item id -> rating, for items steps: dishes of the order's lines only; 1 to 5 (`content.scale` thumbs: 1 down, 5 up).",
  })
  items?: Record<string, unknown>;
}

@InputType('SubmissionLinkInput', { description: "The survey link's `custom.*` parameters (interface 4.9)." })
export class SubmissionLinkInput {
  @Field(() => String, { nullable: true, description: 'The externalOrderId of the order.' }) customOrderId?: string | null;
  @Field(() => String, { nullable: true, description: 'The externalLocationId; scopes the order lookup.' }) customLocationId?: string | null;
}

@InputType('CreateSubmissionInput')
export class CreateSubmissionInput {
  @Field(() => [AnswerInput]) answers!: AnswerInput[];
  @Field(() => String, { nullable: true }) guestId?: string | null;
  @Field(() => String, { nullable: true }) sessionId?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) metadata?: Record<string, unknown>;
  @Field(() => SubmissionLinkInput, { nullable: true }) custom?: SubmissionLinkInput;
  @Field(() => String, { nullable: true, description: '`<metadata key>.<value>`, as `location:metadata` on the link.' })
  locationMetadata?: string | null;
  @Field(() => ID, { nullable: true, description: 'Link an order of this business directly.' }) order?: string | null;
  @Field(() => ID, { nullable: true, description: 'Link a location of this business directly.' }) location?: string | null;
}

export const UpdateSubmissionInput = updateInputOf('UpdateSubmissionInput', CreateSubmissionInput, {
  omit: ['custom', 'locationMetadata'],
  descriptions: { answers: 'Replaces all answers; checked again.', order: 'null unlinks.', location: 'null unlinks.' },
});
export type UpdateSubmissionInput = InstanceType<typeof UpdateSubmissionInput>;

@InputType('SubmissionThemeFilter', { description: 'A text answer the workers read as speaking of this theme; with sentiment, read so.' })
export class SubmissionThemeFilter {
  @Field({ description: "A built-in theme (food, speed, staff, cleanliness, price, ambience, accuracy, delivery) or one of the business's own." })
  theme!: string;
  @Field(() => String, { nullable: true, description: 'positive, neutral or negative: the sentiment the answer speaks of the theme with.' })
  sentiment?: string | null;
}

export const [SubmissionList, SubmissionListArgs] = listInputs('Submission', SubmissionType, {
  where: {
    survey: IDFilter,
    order: IDFilter,
    location: IDFilter,
    guestId: StringFilter,
    sessionId: StringFilter,
    status: StringFilter,
    source: StringFilter,
    channel: StringFilter,
    lowestRating: {
      filter: NumberFilter,
      description:
        'The lowest metric rating in its answers: `{lte: 2}` finds guests who rated anything 2 or less. Submissions without metric ratings match no comparison.',
    },
    completedAt: TimestampFilter,
    updatedAt: TimestampFilter,
    theme: {
      filter: SubmissionThemeFilter,
      description:
        'Submissions with a text answer the workers read as speaking of this theme (with this sentiment, when given); an answer counts once read (within seconds of being stored).',
    },
  },
  orderBy: ['createdAt', 'updatedAt', 'completedAt'],
});
