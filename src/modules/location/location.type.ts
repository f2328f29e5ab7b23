import { Field, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('Location', { simpleResolvers: true, description: 'A branch or outlet; survey links find it by one metadata pair (`location:metadata`).' })
export class LocationType extends ResourceType {
  business!: string;

  @Field()
  name!: string;

  @Field(() => GraphQLJSONObject, { description: 'String to string, e.g. {"branchCode": "LHR-01"}.' })
  metadata!: Record<string, string>;

  @Field(() => String, { nullable: true, description: "IANA time zone of its analytics days; null: the business's." })
  timeZone!: string | null;
}
