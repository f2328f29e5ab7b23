import type { EntityManager } from '@mikro-orm/core';
import { outboxLeases } from '../../kit/db/outbox-job.leases.js';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { AccountMail, AccountMailKind } from './account-mail.entity.js';

/** The account mails' statements: the worker's outbox (claim, lease, finish). */

interface AccountMailDB {
  account_mail: TableOf<AccountMail, 'user' | 'invitation'>;
}

const work = (em: EntityManager) => db<AccountMailDB>(em);

/** The account-mail workers' LISTEN channel: only what queues an account e-mail notifies it. */
export const ACCOUNT_MAIL_CHANNEL = 'account_mail';

/** Wakes the workers once `em`'s transaction commits (kit/signals/signals.ts), at `dueAt` when the mail waits. */
export async function wakeAccountMail(em: EntityManager, dueAt?: Date) {
  wakeAfterCommit(em, ACCOUNT_MAIL_CHANNEL, dueAt);
}

/** When the first mail not leased falls due (null: none), for the workers' look at every queue (due.poll.ts). */
export const nextAccountMailDue = sql<Date | null>`(select due_at from account_mail
  where due_at is not null and (locked_until is null or locked_until < now()) order by due_at limit 1)`;

export const accountMailLeases = outboxLeases<AccountMailDB['account_mail']>('account_mail');

/** A leased mail with what its text needs: its user, and the invitation's business, role and inviter when it is one. */
export interface LeasedAccountMail {
  id: string;
  kind: AccountMailKind;
  email: string;
  user_id: string | null;
  inbox: string;
  /** null: held, waiting for a place in its inbox's hour. */
  inbox_at: Date | null;
  attempts: number;
  expires_at: Date | null;
  invitation_id: string | null;
  business_name: string | null;
  role: string | null;
  inviter: string | null;
}

export async function leasedAccountMail(em: EntityManager, id: string, worker: string): Promise<LeasedAccountMail | undefined> {
  const { rows } = await sql<LeasedAccountMail>`
    select m.id, m.kind, m.email, m.user_id, m.inbox, m.inbox_at, m.attempts, m.expires_at, m.invitation_id, b.name as business_name, i.role,
           coalesce(u.name, u.email) as inviter
      from account_mail m
      left join invitation i on i.id = m.invitation_id
      left join business b on b.id = i.business_id
      left join app_user u on u.id = i.invited_by_id
     where m.id = ${id} and m.locked_by = ${worker} and m.locked_until > now()`.execute(db(em));
  return rows[0];
}

/** The link's token, made now: only its hash is kept, and only while `worker` holds the lease and it is unused. */
export async function setAccountMailToken(em: EntityManager, id: string, worker: string, tokenHash: string): Promise<boolean> {
  const result = await work(em)
    .updateTable('account_mail')
    .set({ token_hash: tokenHash, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * An inbox's last hour: the account e-mails that reached it, and whether one of them is a reset link for `address`
 * that still works (unused, unexpired): a stranger's resets, spent or run out, never stand in for the owner's own.
 */
export interface InboxHour {
  count: number;
  /** When the oldest of them leaves the hour (null: none). */
  frees: Date | null;
  resetFor: boolean;
}

/**
 * The account e-mails that reached `inbox` in the hour before `now` (queued to go at once, or sent; also those let
 * through by a request whose clock ran a little ahead): a held mail counts from the moment it is let through. Read under a transaction lock on the inbox, held until the caller's
 * transaction ends, so two requests or workers at once cannot both take the hour's last place.
 */
export async function inboxHour(em: EntityManager, inbox: string, address: string, now: Date): Promise<InboxHour> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`account_mail:${inbox}`}, 0))`.execute(db(em));
  const { rows } = await sql<{ count: number; oldest: Date | string | null; reset_for: boolean }>`
    select count(*)::int as count, min(inbox_at) as oldest, coalesce(bool_or(kind = 'reset' and email = ${address} and used_at is null and (expires_at is null or expires_at > ${now})), false) as reset_for
      from account_mail where inbox = ${inbox} and inbox_at > ${now}::timestamptz - interval '1 hour'`.execute(db(em));
  const { count, oldest, reset_for } = rows[0];
  return { count, frees: oldest ? new Date(new Date(oldest).getTime() + 3_600_000) : null, resetFor: reset_for };
}

/** A held mail let through now: from now on it counts in its inbox's hour. */
export async function letThrough(em: EntityManager, id: string, now: Date): Promise<void> {
  await work(em).updateTable('account_mail').set({ inbox_at: now, updated_at: sql<Date>`now()` }).where('id', '=', id).execute();
}

/** Takes back an invitation's mail not yet sent (the invitation is revoked): its place in the inbox's hour is free again. */
export async function dropUnsentInvitationMail(em: EntityManager, invitation: string): Promise<void> {
  await sql`delete from account_mail where invitation_id = ${invitation} and status = 'pending' and sent_at is null and attempts = 0
             and (locked_until is null or locked_until < now())`.execute(db(em));
}

/**
 * Account mails that failed for want of an e-mail sender, due again now while still worth sending (run at a start
 * with a sender): a link not used nor expired, an invitation not withdrawn, a "you have an account" notice of the
 * last day. Their link is made when sent (account-mail.task.ts), so a token was never mailed. Answers how many.
 */
export async function requeueUnsentAccountMail(em: EntityManager): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    update account_mail set status = 'pending', error = null, attempts = 0, due_at = now(), updated_at = now()
     where status = 'failed' and error like 'no sender configured for e-mail%' and used_at is null
       and (expires_at > now() or (kind = 'exists' and created_at > now() - interval '1 day'))
       and (kind <> 'invitation' or invitation_id is not null)
    returning id`.execute(db(em));
  return rows.length;
}
