import { Field, ID, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('Offer', {
  simpleResolvers: true,
  description: "A winback offer to a case's guest: redeemed once, by a later order of the business carrying its code in any metadata value (any case).",
})
export class OfferType extends ResourceType {
  business!: string;

  @Field(() => ID)
  case!: string;

  @Field()
  description!: string;

  @Field({ description: 'At least 8 characters, without look-alikes (no 0/O, 1/I/L).' })
  code!: string;

  @Field(() => Timestamp)
  expiresAt!: Date;

  @Field(() => Timestamp, { nullable: true })
  redeemedAt!: Date | null;

  @Field(() => ID, { nullable: true, description: 'The order that redeemed it.' })
  redeemedOrder!: string | null;
}
