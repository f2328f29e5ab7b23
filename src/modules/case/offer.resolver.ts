import { Resolver } from 'type-graphql';
import { NestedCrudResolver } from '../business/index.js';
import { OfferType } from './offer.type.js';
import * as inputs from './offer.inputs.js';
import * as offers from './offer.service.js';

@Resolver(() => OfferType)
export class OfferResolver extends NestedCrudResolver('case', OfferType, inputs, offers.crud, {
  names: ['offer', 'offers'],
  scope: 'cases',
  descriptions: { create: 'A winback offer with a fresh code; with send: true also sent to the guest as a case message.' },
}) {}
