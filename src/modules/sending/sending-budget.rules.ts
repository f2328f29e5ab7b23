import { createHash } from 'node:crypto';
import type { SendingSettings } from '../../config.js';
import { inboxAddress } from '../../shared/inbox-address.js';

export type SendChannel = 'email' | 'sms';
/** A business's daily budgets: one per channel, and its invitations. */
export type BudgetName = SendChannel | 'invitations';

/** What sent a message: a label of the held-messages metric, and of the hold's event. */
export type SendKind = 'feedback_request' | 'reminder' | 'alert' | 'escalation' | 'alert_confirmation' | 'reply' | 'invitation';

const DAY_MS = 86_400_000;

/** Budgets count by the UTC day: the same reset for every process and every business. */
export const dayOf = (now: Date): string => now.toISOString().slice(0, 10);

/** When `now`'s day's budgets reset: the next midnight UTC. */
export const resetOf = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

/** Until when a business created at `createdAt` is new (its budgets are the small ones). */
export const newUntil = (settings: SendingSettings, createdAt: Date): Date => new Date(createdAt.getTime() + settings.newDays * DAY_MS);

/** The business's limit of `budget` a day at `now`: small while it is new, larger after. */
export function limitOf(settings: SendingSettings, budget: BudgetName, createdAt: Date, now: Date): number {
  if (budget === 'invitations') return settings.invitationsPerDay;
  return now < newUntil(settings, createdAt) ? settings[budget].newBusiness : settings[budget].established;
}

/**
 * A guest's key in the per-guest budget: a hash of the inbox the address reaches (inboxAddress: `+tags` and Gmail's
 * dots are one guest) or of the number's digits, so the tally holds no address.
 */
export function recipientKey(channel: SendChannel, address: string): string {
  const normal = channel === 'email' ? inboxAddress(address) : address.replace(/[^\d+]/g, '');
  return createHash('sha256').update(`${channel}:${normal}`).digest('hex');
}

const WORDS: Record<BudgetName, string> = { sms: 'SMS', email: 'e-mails', invitations: 'invitations' };

/** A budget's name as errors, events and the metric give it: `sms`, `sms-per-guest`, `invitations`. */
export const budgetLabel = (budget: BudgetName, perGuest: boolean) => (perGuest ? `${budget}-per-guest` : budget);

/** Why a message may not go today, in words an owner reads in the API's 429. */
export function spentMessage(settings: SendingSettings, budget: BudgetName, perGuest: boolean, limit: number, createdAt: Date, now: Date): string {
  const reset = resetOf(now).toISOString();
  const label = budgetLabel(budget, perGuest);
  if (perGuest)
    return `Sending budget "${label}" spent: a business sends at most ${limit} ${WORDS[budget]} a day to one guest, and this guest has had them today. It resets at ${reset}.`;
  const young =
    budget !== 'invitations' && now < newUntil(settings, createdAt)
      ? ` (the budget of a new business, until ${newUntil(settings, createdAt).toISOString()})`
      : '';
  return `Sending budget "${label}" spent: this business may send ${limit} ${WORDS[budget]} a day${young}, and has sent them today. It resets at ${reset}.`;
}
