import type { EntityManager } from '@mikro-orm/postgresql';
import { inboxAddress } from '../../shared/inbox-address.js';
import { accountMailsWithheld, messagesHeld } from '../../kit/metrics.js';
import { sendingSettings } from '../sending/sending-budget.rules.js';
import { AccountMail, type AccountMailKind } from './account-mail.entity.js';
import { nextInboxSlot, wakeAccountMail } from './account-mail.repo.js';

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
 * wherever. Past that, an invitation waits for the inbox's next free slot (held, not lost); a reset, confirmation or
 * "you already have an account" e-mail is not sent at all: the inbox has that many working links already, and the
 * asker's answer is the same either way. Answers the mail queued, or null. With `send` false (an address with no
 * account) nothing is queued, but the inbox is looked up all the same: both answers take as long.
 */
export async function queueAccountMail(tx: EntityManager, draft: AccountMailDraft, options: { send?: boolean; now?: Date } = {}): Promise<AccountMail | null> {
  const now = options.now ?? new Date();
  const inbox = inboxAddress(draft.email);
  const slot = await nextInboxSlot(tx, inbox, sendingSettings().accountMailsPerHour, now);
  if (options.send === false) return null;
  const later = slot.getTime() > now.getTime();
  if (later && draft.kind !== 'invitation') {
    accountMailsWithheld.inc({ kind: draft.kind });
    return null;
  }
  if (later) messagesHeld.inc({ channel: 'email', kind: draft.kind, budget: 'inbox' });
  const mail = tx.create(AccountMail, { ...draft, inbox, inboxAt: slot, dueAt: slot });
  await wakeAccountMail(tx, slot);
  return mail;
}
