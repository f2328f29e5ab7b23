import { Field, ID, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Timestamp } from '../../graphql/scalars.js';

@ObjectType('Location', { description: 'A branch or outlet; survey links find it by one metadata pair (`location:metadata`).' })
export class LocationType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "location".' })
  object!: string;

  business!: string;

  @Field()
  name!: string;

  @Field(() => GraphQLJSONObject, { description: 'String to string, e.g. {"branchCode": "LHR-01"}.' })
  metadata!: Record<string, string>;

  @Field(() => Timestamp)
  createdAt!: Date;

  @Field(() => Timestamp)
  updatedAt!: Date;
}
