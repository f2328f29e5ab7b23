import { Field, InputType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { listInputs } from '../../kit/list.inputs.js';
import { LocationType } from './location.type.js';

@InputType('CreateLocationInput')
export class CreateLocationInput {
  @Field()
  name!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String to string.' })
  metadata?: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "IANA time zone (Europe/London): the day a rating counts on in analytics. Unset: the business's, else UTC." })
  timeZone?: string | null;
}

@InputType('UpdateLocationInput')
export class UpdateLocationInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Replaces the whole metadata object.' })
  metadata?: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "IANA time zone (Europe/London): the day a rating counts on in analytics. null: the business's, else UTC. Ratings already given keep their day." })
  timeZone?: string | null;
}

export const [LocationList, LocationListArgs] = listInputs('Location', LocationType, {
  where: { name: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
