import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../graphql/scalars.js';

@ObjectType('Business', { description: 'A restaurant or shop: every other resource belongs to one.' })
export class BusinessType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "business".' })
  object!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country code.' })
  country?: string | null;

  @Field(() => Timestamp, { description: 'Milliseconds since the Unix epoch.' })
  createdAt!: Date;

  @Field(() => Timestamp)
  updatedAt!: Date;
}
