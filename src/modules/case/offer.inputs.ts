import { Field, InputType, Int } from 'type-graphql';
import { IDFilter, StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { OfferType } from './offer.type.js';

@InputType('CreateOfferInput')
export class CreateOfferInput {
  @Field({ description: 'What the guest gets, e.g. "A free dessert on your next order".' }) description!: string;
  @Field(() => Int, { nullable: true, description: 'Default 30; 1 to 365.' }) expiresInDays?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Also send it to the guest as a case message (default false).' }) send?: boolean | null;
}

export const [OfferList, OfferListArgs] = listInputs('Offer', OfferType, {
  where: { code: StringFilter, redeemedOrder: IDFilter },
  orderBy: ['createdAt', 'expiresAt'],
});
