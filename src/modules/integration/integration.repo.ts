import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db, runShaped } from '../../kit/db/db.js';

/** The integration module's statements. */

interface IntegrationTables {
  custom_integration: { id: string; business_id: string; secret_hash: string; connected_at: Date; created_at: Date; updated_at: Date; rotated_at: Date | null };
}

/**
 * Inserts the business's Custom integration, or rotates its secret when it has one, in one statement (safe against
 * a concurrent connect of the same business); `rotated` tells which (xmax is set on an updated row).
 */
export async function upsertCustomIntegration(tx: EntityManager, row: { id: string; business: string; secretHash: string; at: Date }) {
  return db<IntegrationTables>(tx)
    .insertInto('custom_integration')
    .values({ id: row.id, business_id: row.business, secret_hash: row.secretHash, connected_at: row.at, created_at: row.at, updated_at: row.at })
    .onConflict((oc) =>
      oc.column('business_id').doUpdateSet((eb) => ({
        secret_hash: eb.ref('excluded.secret_hash'),
        rotated_at: eb.ref('excluded.connected_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning(['id', sql<boolean>`(xmax <> 0)`.as('rotated')])
    .executeTakeFirstOrThrow();
}

/**
 * Who may post orders for a business (the custom webhook's door): the hash of its current secret, its country (phone
 * region) and its staffKey (the order's `staff`, as every door shows it). Undefined when the business has no connected
 * integration.
 */
export async function customWebhookAccount(em: EntityManager, business: string) {
  // Every order the webhook takes asks it first: prepared.
  const build = () =>
    db<IntegrationTables & { business: { id: string; country: string | null; staff_key: string } }>(em)
      .selectFrom('custom_integration as ci')
      .innerJoin('business as b', 'b.id', 'ci.business_id')
      .select(['ci.secret_hash', 'b.country', 'b.staff_key'])
      .where('ci.business_id', '=', business);
  const [account] = await runShaped(em, 'integration.webhook-account', [business], build, { prepare: true });
  return account;
}
