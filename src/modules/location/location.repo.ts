import type { EntityManager } from '@mikro-orm/core';
import { sql, type Expression } from 'kysely';
import { db } from '../../kit/db/db.js';

/** The location module's statements. */

/**
 * The locations orders name by their externalLocationId (the ordering system's id): each value any location's
 * metadata holds, under any key, names the oldest location holding it. As SQL rows (`external_id`, `id`,
 * `time_zone`, `metadata`: `<key>.<value>`, for a survey link's `location:metadata`).
 */
export const orderLocations = (business: Expression<string>) =>
  sql<{
    external_id: string;
    id: string;
    time_zone: string | null;
    metadata: string;
  }>`select distinct on (k.value) k.value as external_id, l.id, l.time_zone, k.key || '.' || k.value as metadata
     from location l, jsonb_each_text(l.metadata) k where l.business_id = ${business} order by k.value, l.created_at, k.key`;

/** The location one order names (orderLocations), to `left join lateral ... on true`. */
export const orderLocation = (business: Expression<string>, externalId: Expression<string | null>) =>
  sql`(select m.id, m.time_zone, m.metadata from (${orderLocations(business)}) m where m.external_id = ${externalId})`;

/**
 * The time zone an order is known to be local to: its location's (orderLocation), else its business's; null when
 * neither names one (a caller that needs a day picks its own fallback: quiet hours then do not apply at all, rather
 * than being read in UTC, which would hold a guest's message back all evening in Karachi's afternoon).
 */
export const orderZone = (business: Expression<string>, externalId: Expression<string | null>) =>
  sql<
    string | null
  >`coalesce((select loc.time_zone from ${orderLocation(business, externalId)} loc), (select b.time_zone from business b where b.id = ${business}))`;

export async function orderZoneOf(em: EntityManager, business: string, externalLocationId: string | null): Promise<string | null> {
  const { rows } = await sql<{ zone: string | null }>`select ${orderZone(sql.val(business), sql.val(externalLocationId))} as zone`.execute(db(em));
  return rows[0].zone;
}

/** The oldest location whose metadata holds key = value (a containment lookup on the GIN index), or undefined. */
export async function locationIdByMetadata(em: EntityManager, business: string, key: string, value: string): Promise<string | undefined> {
  const row = await db<{ location: { id: string; business_id: string; metadata: unknown; created_at: Date } }>(em)
    .selectFrom('location')
    .select('id')
    .where('business_id', '=', business)
    .where(sql<boolean>`metadata @> ${JSON.stringify({ [key]: value })}::jsonb`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
