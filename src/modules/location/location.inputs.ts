import { Field, InputType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { LocationType } from './location.type.js';

@InputType('CreateLocationInput')
export class CreateLocationInput {
  @Field()
  name!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String to string.' })
  metadata?: Record<string, unknown>;

  @Field(() => String, {
    nullable: true,
    description: "IANA time zone (Europe/London): the day a rating counts on in analytics. Unset: the business's, else UTC.",
  })
  timeZone?: string | null;
}

export const UpdateLocationInput = updateInputOf('UpdateLocationInput', CreateLocationInput, {
  descriptions: {
    metadata: 'Replaces the whole metadata object.',
    timeZone: "IANA time zone (Europe/London): the day a rating counts on in analytics. null: the business's, else UTC. Ratings already given keep their day.",
  },
});
export type UpdateLocationInput = InstanceType<typeof UpdateLocationInput>;

export const [LocationList, LocationListArgs] = listInputs('Location', LocationType, {
  where: { name: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
