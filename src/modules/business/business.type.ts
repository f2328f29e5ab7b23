import { Field, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/resource.type.js';

@ObjectType('Business', { simpleResolvers: true, description: 'A restaurant or shop: every other resource belongs to one.' })
export class BusinessType extends ResourceType {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country code.' })
  country?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA time zone: the default of its locations for analytics days (null: UTC).' })
  timeZone?: string | null;
}
