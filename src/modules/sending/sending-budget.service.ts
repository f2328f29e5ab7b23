import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { messagesHeld } from '../../kit/metrics/metrics.js';
import { recordEvent } from '../event/index.js';
import {
  budgetLabel,
  dayOf,
  limitOf,
  newUntil,
  recipientKey,
  resetOf,
  spentMessage,
  type BudgetName,
  type SendChannel,
  type SendKind,
} from './sending-budget.rules.js';
import type { SendingSettings } from '../../config.js';
import { businessCreatedAt, businessTallies, countHeld, forgetEarlierDays, giveBackUnits, takeUnit, type TallyKey } from './sending.repo.js';
import type { SendingBudgetType } from './sending-budget.type.js';

/** One message about to be sent (or accepted for sending) by a business. */
export interface Send {
  business: string;
  channel: SendChannel;
  kind: SendKind;
  /** The guest it goes to (their address or number): it also counts against the per-guest budget. Staff have none. */
  guest?: string | null;
}

interface Unit {
  key: TallyKey;
  budget: BudgetName;
  perGuest: boolean;
  limit: number;
}

/** A unit not taken: the budget that was spent, and what its message says. */
interface Spent {
  unit: Unit;
  createdAt: Date;
  now: Date;
}

/** The units a message takes: the guest's first (the one named when both are spent), the channel's, an invitation's. */
function unitsOf(settings: SendingSettings, send: Send, createdAt: Date, now: Date): Unit[] {
  const day = dayOf(now);
  const unit = (budget: BudgetName, recipient: string, limit: number): Unit => ({
    key: { business: send.business, day, budget, recipient },
    budget,
    perGuest: recipient !== '',
    limit,
  });
  return [
    ...(send.guest ? [unit(send.channel, recipientKey(send.channel, send.guest), settings.perGuest)] : []),
    unit(send.channel, '', limitOf(settings, send.channel, createdAt, now)),
    ...(send.kind === 'invitation' ? [unit('invitations', '', limitOf(settings, 'invitations', createdAt, now))] : []),
  ];
}

/** Takes every unit of the send in `tx` and answers what it took, or the first spent budget (the caller rolls back). */
async function take(settings: SendingSettings, tx: EntityManager, send: Send, now: Date): Promise<{ taken: TallyKey[]; spent?: Spent }> {
  const createdAt = await businessCreatedAt(tx, send.business);
  if (!createdAt) throw AppError.notFound('Business', send.business);
  const taken: TallyKey[] = [];
  for (const unit of unitsOf(settings, send, createdAt, now)) {
    const { taken: took, first } = await takeUnit(tx, unit.key, unit.limit);
    if (!took) return { taken, spent: { unit, createdAt, now } };
    taken.push(unit.key);
    // The business's first message of a day on a channel clears its counts of earlier days: no sweeper needed.
    if (first && !unit.perGuest) await forgetEarlierDays(tx, send.business, unit.key.day);
  }
  return { taken };
}

/** A worker's send: reserved (give the units back if it does not go out), or held until the budget resets. */
export type Reservation = { reserved: true; giveBack(): Promise<void> } | { reserved: false; until: Date; budget: string };

const NOT_TAKEN = Symbol('a budget is spent');

/**
 * The sending budgets of every business (SEND_BUDGET_*, INVITATIONS_PER_DAY, ACCOUNT_MAILS_PER_ADDRESS_HOUR): one per
 * process, made by the composition root from the configuration; every door, worker and command sends through it.
 */
export class SendingBudgets {
  constructor(readonly settings: SendingSettings) {}

  /**
   * A message the API accepts (a reply or an offer to a guest, an invitation): counted in the caller's transaction
   * `tx`, or refused with a 429 that names the spent budget and says when it resets (Retry-After). The refusal throws,
   * so the transaction writes nothing of the message.
   */
  async charge(tx: EntityManager, send: Send): Promise<void> {
    const now = new Date();
    const { spent } = await take(this.settings, tx, send, now);
    if (!spent) return;
    const seconds = Math.max(1, Math.ceil((resetOf(now).getTime() - now.getTime()) / 1000));
    const message = spentMessage(this.settings, spent.unit.budget, spent.unit.perGuest, spent.unit.limit, spent.createdAt, now);
    throw new AppError('rate_limited', message, undefined, { 'Retry-After': String(seconds) });
  }

  /**
   * Before a worker sends an automated message (a feedback request or its reminder, an alert): the units are taken
   * at once in their own transaction (all or none), so workers in any number of processes never overspend. When a
   * budget is spent the message is held: the caller schedules it for `until` (the reset), the hold is counted (the
   * business's row, `messages_held_total`), and the owner is told by the day's first hold of a business budget
   * (the event `sendingbudget.reached`).
   */
  async reserve(em: EntityManager, send: Send, now: Date): Promise<Reservation> {
    let outcome: Awaited<ReturnType<typeof take>> = { taken: [] };
    try {
      await em.transactional(async (tx) => {
        outcome = await take(this.settings, tx, send, now);
        if (outcome.spent) throw NOT_TAKEN;
      });
    } catch (err) {
      if (err !== NOT_TAKEN) throw err;
    }
    const { spent, taken } = outcome;
    if (!spent) return { reserved: true, giveBack: () => giveBackUnits(em, taken) };
    const { unit, createdAt } = spent;
    messagesHeld.inc({ channel: send.channel, kind: send.kind, budget: unit.perGuest ? 'guest' : 'business' });
    await em.transactional(async (tx) => {
      const counted = await countHeld(tx, unit.key, now);
      if (counted?.first && !unit.perGuest) {
        recordEvent(tx, send.business, 'sendingbudget.reached', {
          object: 'sendingbudget',
          business: send.business,
          ...this.present(send.channel, createdAt, now, counted),
        });
      }
    });
    return { reserved: false, until: resetOf(now), budget: budgetLabel(unit.budget, unit.perGuest) };
  }

  /** The business's budgets on each channel today, with what is left (Business.sendingBudget). */
  async of(em: EntityManager, business: { id: string; createdAt: Date }, now: Date): Promise<SendingBudgetType[]> {
    const rows = await businessTallies(em, business.id, dayOf(now));
    return (['email', 'sms'] as const).map((channel) => {
      const row = rows.find((r) => r.budget === channel);
      return this.present(channel, new Date(business.createdAt), now, { used: row?.used ?? 0, held: row?.held ?? 0 });
    });
  }

  private present(channel: SendChannel, createdAt: Date, now: Date, counts: { used: number; held: number }): SendingBudgetType {
    const limit = limitOf(this.settings, channel, createdAt, now);
    const grows = newUntil(this.settings, createdAt);
    return {
      channel,
      limit,
      used: counts.used,
      remaining: Math.max(0, limit - counts.used),
      held: counts.held,
      perGuest: this.settings.perGuest,
      resetsAt: resetOf(now),
      growsAt: grows > now ? grows : null,
    };
  }
}

declare module '../../kit/graphql/context.js' {
  interface Services {
    /** The sending budgets every outbound message counts against. */
    sending: SendingBudgets;
  }
}
