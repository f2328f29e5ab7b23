import type { EntityManager } from '@mikro-orm/core';
import { outboxLeases } from '../../kit/db/outbox-job.leases.js';
import { sql, type Updateable } from 'kysely';
import { db } from '../../kit/db/db.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import { rowsWhere } from '../../kit/db/entity.rows.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import { AlertRule } from './alert-rule.entity.js';
import { AlertRecipient, newConsentToken, type ConsentStatus } from './alert-recipient.entity.js';
import type { Location } from '../location/index.js';
import type { Survey } from '../survey/index.js';
import type { Membership } from '../user/index.js';

/** The alert module's statements. */

type Tables = {
  location: TableOf<Location, 'business'>;
  survey: TableOf<Survey, 'business'>;
  membership: TableOf<Membership, 'business' | 'user'>;
  alert_recipient: TableOf<AlertRecipient, 'business'>;
};

const alerts = (em: EntityManager) => db<Tables>(em);

/** Which of `ids` name a `kind` of `business`. */
export async function ownedIds(em: EntityManager, kind: 'location' | 'survey' | 'membership', business: string, ids: string[]): Promise<Set<string>> {
  const strings = ids.filter((id): id is string => typeof id === 'string');
  if (!strings.length) return new Set();
  const rows = await alerts(em).selectFrom(kind).select('id').where('business_id', '=', business).where('id', 'in', strings).execute();
  return new Set(rows.map((r) => r.id));
}

/** A business's rules, oldest first, as plain rows of their properties (prepared: each completed answer reads them). */
export const rulesOfBusiness = (em: EntityManager, business: string) => rowsWhere(em, AlertRule, 'business', [business], [{ createdAt: 'asc' }, { id: 'asc' }]);

// ---- Outside recipients: their consent, and the outbox of their one confirmation. ----

/** The confirmation workers' LISTEN channel: only a recipient's first naming notifies it. */
export const ALERT_CONFIRMATIONS_CHANNEL = 'alert_confirmations';

/**
 * Each of `addresses` not yet known to the business becomes a recipient asked once (its confirmation due now, the
 * workers woken at commit); one already known keeps its answer and is not asked again. Answers how many were new.
 */
export async function insertRecipients(em: EntityManager, business: string, addresses: ReadonlyArray<{ channel: string; address: string }>): Promise<number> {
  if (!addresses.length) return 0;
  const now = new Date();
  const rows = addresses.map(({ channel, address }) => ({
    id: new AlertRecipient().id,
    business_id: business,
    channel,
    address,
    status: 'pending' as const,
    token: newConsentToken(),
    attempts: 0,
    due_at: now,
    created_at: now,
    updated_at: now,
  }));
  const made = await alerts(em)
    .insertInto('alert_recipient')
    .values(rows)
    .onConflict((oc) => oc.constraint('alert_recipient_address_uq').doNothing())
    .returning('id')
    .execute();
  if (made.length) wakeAfterCommit(em, ALERT_CONFIRMATIONS_CHANNEL);
  return made.length;
}

/** The business's confirmed recipients among `addresses` (any channel; the caller matches the channel). */
export function confirmedRecipients(em: EntityManager, business: string, addresses: string[]) {
  if (!addresses.length) return Promise.resolve([]);
  return alerts(em)
    .selectFrom('alert_recipient')
    .select(['id', 'channel', 'address'])
    .where('business_id', '=', business)
    .where('status', '=', 'confirmed')
    .where('address', 'in', addresses)
    .execute();
}

/** A recipient by its link's key, with the name the business shows guests. */
export async function recipientByToken(em: EntityManager, token: string) {
  const { rows } = await sql<{ id: string; business_id: string; channel: string; address: string; status: ConsentStatus; business_name: string }>`
    select r.id, r.business_id, r.channel, r.address, r.status, coalesce(b.display_name, b.name) as business_name
      from alert_recipient r join business b on b.id = r.business_id
     where r.token = ${token}`.execute(db(em));
  return rows[0];
}

/**
 * The recipient's answer: confirmed (alerted from now on) or declined (never messaged by the business again). An
 * answer also settles a confirmation still waiting to go: it is no longer sent.
 */
export async function answerRecipient(em: EntityManager, business: string, id: string, status: 'confirmed' | 'declined', now: Date) {
  await alerts(em)
    .updateTable('alert_recipient')
    .set({
      status,
      confirmed_at: status === 'confirmed' ? sql<Date>`coalesce(confirmed_at, ${now})` : null,
      declined_at: status === 'declined' ? now : null,
      due_at: null,
      updated_at: now,
    })
    .where('business_id', '=', business)
    .where('id', '=', id)
    .execute();
}

/** A number's STOP: it declines wherever it is an alert recipient still asked or told. Answers those businesses. */
export async function declineNumber(em: EntityManager, phone: string, now: Date): Promise<string[]> {
  const rows = await alerts(em)
    .updateTable('alert_recipient')
    .set({ status: 'declined', declined_at: now, confirmed_at: null, due_at: null, updated_at: now })
    .where('channel', '=', 'sms')
    .where('address', '=', phone)
    .where('status', '<>', 'declined')
    .returning('business_id')
    .execute();
  return rows.map((r) => r.business_id);
}

/**
 * When the first confirmation not leased falls due (null: none), for the workers' look at every queue (due.poll.ts).
 * Only a recipient still unanswered has one to send: an answer given while its send was in flight (and failed, to be
 * tried again) ends it.
 */
export const nextConfirmationDue = sql<Date | null>`(select due_at from alert_recipient
  where due_at is not null and status = 'pending' and (locked_until is null or locked_until < now()) order by due_at limit 1)`;

/** The confirmations' leases: due ones of recipients still unanswered. */
export const confirmationLeases = outboxLeases<Tables['alert_recipient']>('alert_recipient', sql`status = 'pending'`);

/** A leased confirmation still to send (not answered meanwhile), with the business's name. */
export async function leasedConfirmation(em: EntityManager, id: string, worker: string) {
  const { rows } = await sql<{
    id: string;
    business_id: string;
    channel: 'email' | 'sms';
    address: string;
    token: string;
    attempts: number;
    business_name: string;
  }>`
    select r.id, r.business_id, r.channel, r.address, r.token, r.attempts, coalesce(b.display_name, b.name) as business_name
      from alert_recipient r join business b on b.id = r.business_id
     where r.id = ${id} and r.locked_by = ${worker} and r.locked_until > now() and r.status = 'pending' and r.due_at is not null`.execute(db(em));
  return rows[0];
}

/** Confirmations left unsent for want of a sender on one of `channels`, due again now (a start with those senders). */
export async function requeueUnsentConfirmations(em: EntityManager, channels: string[]): Promise<number> {
  if (!channels.length) return 0;
  const { rows } = await sql<{ id: string }>`
    update alert_recipient set error = null, due_at = now(), updated_at = now()
     where status = 'pending' and due_at is null and error like 'no sender configured%' and channel in (${sql.join(channels)})
    returning id`.execute(db(em));
  return rows.length;
}
