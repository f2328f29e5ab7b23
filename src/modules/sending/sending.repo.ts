import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';

/** The sending module's statements: the daily tallies of sending_tally (sending-tally.entity.ts). */

/** One counter: a business's budget on a day, for the business itself (`recipient` '') or one guest. */
export interface TallyKey {
  business: string;
  day: string;
  budget: string;
  recipient: string;
}

const where = (k: TallyKey) => sql`business_id = ${k.business} and day = ${k.day}::date and budget = ${k.budget} and recipient = ${k.recipient}`;

/** When the business was created (its age decides its budgets); undefined for no such business. */
export async function businessCreatedAt(em: EntityManager, business: string): Promise<Date | undefined> {
  const { rows } = await sql<{ created_at: Date | string }>`select created_at from business where id = ${business}`.execute(db(em));
  return rows[0] ? new Date(rows[0].created_at) : undefined;
}

/**
 * One unit more on the counter while it is under `limit` (at least 1), in one statement: concurrent takers queue on
 * the row and each sees the count the one before left, so no two take the last unit. Answers whether it was taken,
 * and whether the row is the day's first (nothing of it existed).
 */
export async function takeUnit(em: EntityManager, key: TallyKey, limit: number): Promise<{ taken: boolean; first: boolean }> {
  const { rows } = await sql<{ first: boolean }>`
    insert into sending_tally as t (business_id, day, budget, recipient, used, held)
    values (${key.business}, ${key.day}::date, ${key.budget}, ${key.recipient}, 1, 0)
    on conflict (business_id, day, budget, recipient) do update set used = t.used + 1 where t.used < ${limit}
    returning (t.xmax = 0) as first`.execute(db(em));
  return { taken: rows.length > 0, first: rows[0]?.first ?? false };
}

/** Gives units back (a message that did not go out): never below zero. */
export async function giveBackUnits(em: EntityManager, keys: TallyKey[]): Promise<void> {
  for (const key of keys) await sql`update sending_tally set used = greatest(used - 1, 0) where ${where(key)}`.execute(db(em));
}

/** Forgets the business's counts of days before `day`. */
export async function forgetEarlierDays(em: EntityManager, business: string, day: string): Promise<void> {
  await sql`delete from sending_tally where business_id = ${business} and day < ${day}::date`.execute(db(em));
}

/**
 * Counts a message held by a spent budget (its row exists: the refusal found it full), and says whether it is the
 * day's first hold of that budget, told to the owner once: the row is locked before it is read, so of two holds at
 * once only one sees `told_at` empty.
 */
export async function countHeld(em: EntityManager, key: TallyKey, now: Date): Promise<{ first: boolean; used: number; held: number } | undefined> {
  const { rows } = await sql<{ first: boolean; used: number; held: number }>`
    update sending_tally t set held = t.held + 1, told_at = coalesce(t.told_at, ${now})
      from (select told_at from sending_tally where ${where(key)} for update) prev
     where t.business_id = ${key.business} and t.day = ${key.day}::date and t.budget = ${key.budget} and t.recipient = ${key.recipient}
    returning (prev.told_at is null) as first, t.used, t.held`.execute(db(em));
  return rows[0];
}

/** The business's own rows of `day` (every budget), as they stand. */
export async function businessTallies(em: EntityManager, business: string, day: string): Promise<Array<{ budget: string; used: number; held: number }>> {
  const { rows } = await sql<{ budget: string; used: number; held: number }>`
    select budget, used, held from sending_tally where business_id = ${business} and day = ${day}::date and recipient = ''`.execute(db(em));
  return rows;
}
