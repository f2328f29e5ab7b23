import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../event/index.js';
import type { OrderRecord, OrderTrigger } from '../order/index.js';
import { GuestCase } from './case.entity.js';
import { Offer } from './offer.entity.js';
import { caseEventObject } from './case.service.js';
import { presentOffer } from './offer.service.js';
import { recoverBy } from './case.repo.js';
import { mayRecoverCached } from './case-recovery.cache.js';

/**
 * Every new order, from any door, may bring an unhappy guest back: it redeems an offer whose code one of its metadata
 * values carries, and recovers the cases waiting for the same guest. Only businesses that may have something waiting
 * pay a statement (case-recovery.cache.ts).
 */

/** Whether the order may recover a case or redeem an offer: a new order, of a business that may have one waiting, that names its guest or a code. */
export async function recoveryMayFollow(em: EntityManager, business: string, order: OrderRecord, triggers: OrderTrigger[], now: Date): Promise<boolean> {
  if (!triggers.includes('order.created')) return false;
  if (!(await mayRecoverCached(em, business, now))) return false;
  return codesOf(order.metadata as Record<string, unknown>).length > 0 || !!order.customerEmail || !!order.customerPhone;
}

/** Offer codes are at least 8 characters from an upper-case alphabet; other values cannot be one. */
const codesOf = (metadata: Record<string, unknown> | null | undefined) => [
  ...new Set(
    Object.values(metadata ?? {})
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.trim().toUpperCase())
      .filter((v) => /^[A-Z0-9]{8,32}$/.test(v)),
  ),
];

/** The order module's "order written" step for recovery, in the order's own transaction (bound at start). */
export async function recoverCasesFor(tx: EntityManager, business: string, order: OrderRecord, triggers: OrderTrigger[], now: Date): Promise<void> {
  if (!(await recoveryMayFollow(tx, business, order, triggers, now))) return;
  const codes = codesOf(order.metadata as Record<string, unknown>);
  const changed = await recoverBy(tx, { business, order: order.id, codes, email: order.customerEmail ?? null, phone: order.customerPhone ?? null, now });
  if (!changed.cases.length && !changed.offers.length) return;
  for (const offer of await tx.find(Offer, { business, id: { $in: changed.offers } }, { orderBy: { id: 'asc' } }))
    recordEvent(tx, business, 'offer.redeemed', presentOffer(offer));
  for (const c of await tx.find(GuestCase, { business, id: { $in: changed.cases } }, { orderBy: { id: 'asc' } }))
    recordEvent(tx, business, 'case.recovered', caseEventObject(c));
  await tx.flush();
}
