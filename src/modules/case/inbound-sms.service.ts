import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { recordEvent } from '../event/index.js';
import { businessesTextingSince, stopFromPhone } from '../flow/index.js';
import { normalisePhone } from '../order/index.js';
import { CaseMessage } from './case-message.entity.js';
import type { CaseMessageType } from './case-message.type.js';
import { GuestCase } from './case.entity.js';
import { HeldSms } from './held-sms.entity.js';
import { businessesThatTexted, expireHeldSms, heldCountFrom, smsThreadsTo } from './case.repo.js';
import { declineByStop } from '../alert/index.js';
import { presentMessage } from './case-message.service.js';
import { SMS_LIMIT } from './case-message.rules.js';
import { CODE_WINDOW_DAYS, daysBefore, MAX_HELD_PER_SENDER, RECENT_WINDOW_DAYS, tieInboundSms, type InboundTie } from './inbound-sms.rules.js';

/** Each hold drops at most this many expired held texts: more than arrive, so the expiry keeps up. */
const EXPIRED_PER_HOLD = 10;

/**
 * What became of a guest's SMS: the thread it joined (and how it was tied), the held row kept for the operator, or
 * nothing kept: an empty text, or an opt-out tied to no thread (acted on everywhere, nothing left to read).
 */
export type ReceivedSms =
  | { joined: Extract<InboundTie, { caseId: string }> }
  | { held: { id: string; reason: string } }
  | { kept: 'nothing'; why: 'empty' | 'stop' | 'held_full' };

/** The guest's SMS as `in` in a case's thread, with its `casemessage.created` event. */
function addToThread(tx: EntityManager, thread: { caseId: string; business: string }, phone: string, body: string, receivedAt: Date): CaseMessage {
  const message = tx.create(CaseMessage, {
    business: thread.business,
    case: thread.caseId,
    direction: 'in',
    channel: 'sms',
    body,
    status: 'sent',
    author: null,
    address: phone,
    sentAt: receivedAt,
    createdAt: receivedAt,
    updatedAt: receivedAt,
  });
  recordEvent(tx, thread.business, 'casemessage.created', presentMessage(message));
  return message;
}

/**
 * An SMS from a guest (the inbound endpoint): joins the one case thread it can be tied to (inbound-sms.rules.ts), or
 * is held for the operator with the threads it might have been for; `stop` (an opt-out) is not held.
 */
export async function receiveGuestSms(em: EntityManager, from: string, text: string, options: { stop: boolean; now?: Date }): Promise<ReceivedSms> {
  const now = options.now ?? new Date();
  const body = text.slice(0, SMS_LIMIT);
  if (!body.trim()) return { kept: 'nothing', why: 'empty' };
  const phone = normalisePhone(from, null);
  return em.transactional(async (tx) => {
    const threads = phone ? await smsThreadsTo(tx, phone, daysBefore(now, CODE_WINDOW_DAYS)) : [];
    const writers = phone ? await businessesTextingSince(tx, phone, daysBefore(now, RECENT_WINDOW_DAYS)) : [];
    const tie = tieInboundSms(body, threads, writers, now);
    if (!('held' in tie)) {
      addToThread(tx, tie, phone!, body, now);
      return { joined: tie };
    }
    if (options.stop) return { kept: 'nothing', why: 'stop' };
    // Bounded (MAX_HELD_PER_SENDER): anyone can text the number, and what no thread can claim is gone after the window.
    await expireHeldSms(tx, daysBefore(now, CODE_WINDOW_DAYS), EXPIRED_PER_HOLD);
    const sender = (phone ?? from).slice(0, 40);
    if ((await heldCountFrom(tx, sender)) >= MAX_HELD_PER_SENDER) return { kept: 'nothing', why: 'held_full' };
    const held = tx.create(HeldSms, { sender, body, reason: tie.held, candidates: threads.map((t) => t.caseId), createdAt: now, updatedAt: now });
    return { held: { id: held.id, reason: tie.held } };
  });
}

/**
 * A STOP from this number opts it out of every business that asked it (feedback requests), texted it from a case, or
 * names it as an alert recipient (declined there, as its link's refusal would).
 */
export async function stopGuestSms(em: EntityManager, from: string): Promise<number> {
  const phone = normalisePhone(from, null);
  return stopFromPhone(em, from, phone ? [...(await businessesThatTexted(em, phone)), ...(await declineByStop(em, phone))] : []);
}

export interface HeldSmsView {
  id: string;
  object: 'heldsms';
  sender: string;
  body: string;
  reason: string;
  candidates: string[];
  receivedAt: Date;
}

const presentHeld = (h: HeldSms): HeldSmsView => ({
  id: h.id,
  object: 'heldsms',
  sender: h.sender,
  body: h.body,
  reason: h.reason,
  candidates: h.candidates,
  receivedAt: h.createdAt,
});

/** The operator's list of held SMS, newest first. */
export async function listHeldSms(em: EntityManager, limit = 100): Promise<HeldSmsView[]> {
  return (await em.find(HeldSms, {}, { orderBy: { id: 'desc' }, limit })).map(presentHeld);
}

const heldNotFound = (id: string) => new AppError('not_found', `Held SMS ${id} not found (attached or dropped already?)`);

/**
 * The operator ties a held SMS to one of its candidate threads (a case that texted its number): it joins that thread
 * as received at the time it came, and is no longer held.
 */
export async function attachHeldSms(em: EntityManager, id: string, caseId: string): Promise<CaseMessageType> {
  return em.transactional(async (tx) => {
    const held = await tx.findOne(HeldSms, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!held) throw heldNotFound(id);
    if (!held.candidates.includes(caseId)) {
      const which = held.candidates.length ? `one of ${held.candidates.join(', ')}` : 'none: no case had texted the number';
      throw new AppError('conflict', `Case ${caseId} had not texted ${held.sender} when this SMS came; it may join ${which}`);
    }
    const c = await tx.findOne(GuestCase, { id: caseId });
    if (!c) throw new AppError('not_found', `Case ${caseId} not found`);
    const message = addToThread(tx, { caseId, business: c.business }, held.sender, held.body, held.createdAt);
    tx.remove(held);
    return presentMessage(message);
  });
}

/** The operator drops a held SMS (read, nothing to route). */
export async function dropHeldSms(em: EntityManager, id: string): Promise<void> {
  if (!(await em.nativeDelete(HeldSms, { id }))) throw heldNotFound(id);
}
