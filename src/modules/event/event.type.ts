import { Field, ID, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('Event', { simpleResolvers: true, description: 'A record of a change, written in the same transaction as the change.' })
export class EventType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "event".' })
  object!: 'event';

  business!: string;

  @Field({ description: 'e.g. survey.created, order.updated.' })
  type!: string;

  @Field(() => GraphQLJSONObject, { description: '{object: <the resource as the API showed it>}' })
  data!: Record<string, unknown>;

  @Field(() => Timestamp)
  createdAt!: Date;
}
