import { Field, ID, ObjectType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('SubmissionAnswer', { simpleResolvers: true })
export class SubmissionAnswerType {
  @Field(() => ID, { description: 'The step answered.' })
  step!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'A string, a number or an array of strings.' })
  value?: string | number | string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'metric id -> rating, on metrics steps.' })
  ratings?: Record<string, number> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'menu item id -> rating (1 to 5), on items steps.' })
  items?: Record<string, number> | null;
}

@ObjectType('Submission', { simpleResolvers: true, description: "One customer's response to a survey." })
export class SubmissionType extends ResourceType {
  business!: string;
  surveyId?: string | null;
  orderId?: string | null;
  locationId?: string | null;

  @Field(() => [SubmissionAnswerType])
  answers!: SubmissionAnswerType[];

  @Field(() => String, { nullable: true })
  guestId?: string | null;

  @Field(() => String, { nullable: true })
  sessionId?: string | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => String, { description: '`partial` while a guest is still answering on the survey page, then `completed`.' })
  status!: string;

  @Field(() => Timestamp, { nullable: true, description: 'When the last step was answered: milliseconds since the Unix epoch.' })
  completedAt?: Date | null;

  @Field(() => String, { description: '`api` (written by an integration) or `page` (a guest on the survey page).' })
  source!: string;

  @Field(() => String, { nullable: true, description: "How the guest got the link (the link's `ch`): qr, link, sms or email." })
  channel?: string | null;
}
