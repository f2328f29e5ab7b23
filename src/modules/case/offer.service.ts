import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Checks } from '../../shared/validation.js';
import type { WriteContext } from '../../kit/graphql/context.js';
import { findCase } from './case.service.js';
import { recoveryMayWait } from './case-recovery.cache.js';
import { queueCaseMessage } from './case-message.service.js';
import { Offer } from './offer.entity.js';
import type { OfferType } from './offer.type.js';
import type { CreateOfferInput } from './offer.inputs.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';
import { READABLE_ALPHABET } from '../../shared/readable-code.js';

export const presentOffer: (record: Offer) => OfferType = ownedPresenter('offer', ['case', 'description', 'code', 'expiresAt', 'redeemedAt', 'redeemedOrder']);

const CODE_LENGTH = 10;
const DEFAULT_EXPIRY_DAYS = 30;
const MAX_EXPIRY_DAYS = 365;

function newOfferCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += READABLE_ALPHABET[randomInt(READABLE_ALPHABET.length)];
  return code;
}

/** The guest's message for an offer sent with it: the description, the code and its last day. */
const offerMessage = (offer: Pick<Offer, 'description' | 'code' | 'expiresAt'>) =>
  `${offer.description}\n\nYour code: ${offer.code} (give it with your next order, until ${offer.expiresAt.toISOString().slice(0, 10)}).`;

async function findOffer(em: EntityManager, business: string, caseId: string, id: string) {
  await findCase(em, business, caseId);
  return findOwned(em, Offer, { kind: 'offer', label: 'Offer', business, id, where: { case: caseId } });
}

async function listOffers(em: EntityManager, business: string, caseId: string, args: ListArgsValue<object, OrderByValue>) {
  await findCase(em, business, caseId);
  return findPage<Offer, OfferType>(em, Offer, { scope: { business, case: caseId }, args, present: presentOffer });
}

function createOffer(em: EntityManager, business: string, caseId: string, input: CreateOfferInput, ctx: WriteContext): Promise<OfferType> {
  const checks = new Checks();
  checks.text('description', input.description, { required: true, max: 500 });
  const days = input.expiresInDays ?? DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS) checks.fail('expiresInDays', `must be from 1 to ${MAX_EXPIRY_DAYS}`);
  checks.throwIfAny();
  return em.transactional(async (tx) => {
    const c = await findCase(tx, business, caseId, true);
    const now = new Date();
    const offer = tx.create(Offer, {
      business,
      case: c.id,
      description: input.description.trim(),
      code: newOfferCode(),
      expiresAt: new Date(now.getTime() + days * 86_400_000),
      createdAt: now,
      updatedAt: now,
    });
    const presented = presentOffer(offer);
    recordEvent(tx, business, 'offer.created', presented);
    await tx.flush();
    if (input.send) await queueCaseMessage(tx, c, { body: offerMessage(offer) }, ctx);
    recoveryMayWait(business);
    return presented;
  });
}

/** The operations by role, for the GraphQL resolver (NestedCrudResolver under a case): offers are never edited. */
export const crud = { list: listOffers, find: findOffer, present: presentOffer, create: createOffer };
