import type { EntityManager } from '@mikro-orm/postgresql';
import { inboxAddress } from '../../shared/inbox-address.js';
import { accountMailsWithheld, messagesHeld } from '../../kit/metrics/metrics.js';
import type { SendingSettings } from '../../config.js';
import { AccountMail, type AccountMailKind } from './account-mail.entity.js';
import { inboxHour, letThrough, wakeAccountMail } from './account-mail.repo.js';

export interface AccountMailDraft {
  kind: AccountMailKind;
  email: string;
  user?: string | null;
  invitation?: string | null;
  continueTo?: string | null;
  expiresAt?: Date | null;
}

/**
 * Every account e-mail is queued here, in the transaction that asks for it: at most ACCOUNT_MAILS_PER_ADDRESS_HOUR
 * reach one inbox in any hour (inboxAddress: case, `+tags` and Gmail's dots are one inbox), whoever asks and from
 * wherever. Past that, an invitation waits until the hour has room (held, not lost: the worker lets it through,
 * letInvitationThrough); a reset, confirmation or "you already have an account" e-mail is not sent at all, and the
 * asker's answer is the same either way. One exception keeps the rightful owner from being locked out by others'
 * e-mails: a reset of an account whose owner proved this inbox (`ownerProved`: a verified account) goes once an hour
 * past the number. Answers the mail queued, or null. With `send` false (an address with no account) nothing is
 * queued, but the inbox is read all the same: both answers take as long.
 */
export async function queueAccountMail(
  tx: EntityManager,
  draft: AccountMailDraft,
  limits: Pick<SendingSettings, 'accountMailsPerHour'>,
  options: { send?: boolean; ownerProved?: boolean; now?: Date } = {},
): Promise<AccountMail | null> {
  const now = options.now ?? new Date();
  const inbox = inboxAddress(draft.email);
  const hour = await inboxHour(tx, inbox, draft.email, now);
  if (options.send === false) return null;
  const room = hour.count < limits.accountMailsPerHour || (draft.kind === 'reset' && options.ownerProved === true && !hour.resetFor);
  if (!room && draft.kind !== 'invitation') {
    accountMailsWithheld.inc({ kind: draft.kind });
    return null;
  }
  const dueAt = room ? now : (hour.frees ?? now);
  if (!room) messagesHeld.inc({ channel: 'email', kind: draft.kind, budget: 'inbox' });
  const mail = tx.create(AccountMail, { ...draft, inbox, inboxAt: room ? now : null, dueAt });
  await wakeAccountMail(tx, dueAt);
  return mail;
}

/**
 * A held invitation falling due (the worker, before it sends): let through when its inbox's hour has room, in a
 * transaction of its own under the inbox's lock; otherwise answers when to look again.
 */
export function letInvitationThrough(
  em: EntityManager,
  mail: { id: string; inbox: string; email: string },
  limits: Pick<SendingSettings, 'accountMailsPerHour'>,
  now: Date,
): Promise<{ through: true } | { through: false; retryAt: Date }> {
  return em.transactional(async (tx) => {
    const hour = await inboxHour(tx, mail.inbox, mail.email, now);
    if (hour.count >= limits.accountMailsPerHour) return { through: false as const, retryAt: hour.frees ?? new Date(now.getTime() + 60_000) };
    await letThrough(tx, mail.id, now);
    return { through: true as const };
  });
}
