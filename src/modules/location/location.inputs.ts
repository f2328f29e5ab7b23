import { Field, InputType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
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

@InputType('LocationWhere')
export class LocationWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) name?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const LocationOrderBy = orderByInput('LocationOrderBy', { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' });
export const LocationListArgs = listArgs(LocationWhere, LocationOrderBy);
export const LocationList = listType(LocationType, 'LocationList');
