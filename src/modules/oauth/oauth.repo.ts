import { sql, type Kysely } from 'kysely';
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../../kit/db/db.js';
import type { MembershipRole } from '../user/index.js';

/**
 * The OAuth module's SQL that the ORM's entity calls do not say (conditional upserts, deletes by expiry, advisory
 * locks), in one place, with the ORM's Kysely: a statement runs in `em`'s transaction when it has one
 * (docs/architecture.md, "Reading and writing data"). The columns named here are those of the module's entities.
 */
interface OAuthTables {
  oauth_authorization_code: { code_hash: string; expires_at: Date };
  oauth_token: {
    id: string;
    user_id: string;
    business_id: string;
    access_expires_at: Date;
    refresh_expires_at: Date | null;
    revoked_at: Date | null;
  };
  sign_in_throttle: { key: string; failures: number; window_started_at: Date };
  membership: { user_id: string; business_id: string; role: MembershipRole };
}

const oauthDb = (em: EntityManager): Kysely<OAuthTables> => db<OAuthTables>(em);

/** `interval` ago, in PostgreSQL's clock. */
const ago = (interval: string) => sql<Date>`now() - ${interval}::interval`;

/** Authorization codes that expired more than `grace` (an interval: '1 day') ago. Answers how many. */
export async function deleteExpiredCodes(em: EntityManager, grace: string): Promise<number> {
  const { numDeletedRows } = await oauthDb(em).deleteFrom('oauth_authorization_code').where('expires_at', '<', ago(grace)).executeTakeFirst();
  return Number(numDeletedRows);
}

/** Tokens whose access and refresh token both expired more than `grace` ago. Answers how many. */
export async function deleteExpiredTokens(em: EntityManager, grace: string): Promise<number> {
  const { numDeletedRows } = await oauthDb(em)
    .deleteFrom('oauth_token')
    .where(sql<Date>`greatest(access_expires_at, coalesce(refresh_expires_at, access_expires_at))`, '<', ago(grace))
    .executeTakeFirst();
  return Number(numDeletedRows);
}

/** Sign-in throttle rows whose window started more than `window` ago. Answers how many. */
export async function deleteEndedThrottles(em: EntityManager, window: string): Promise<number> {
  const { numDeletedRows } = await oauthDb(em).deleteFrom('sign_in_throttle').where('window_started_at', '<', ago(window)).executeTakeFirst();
  return Number(numDeletedRows);
}

/**
 * `run` while this process holds the session advisory lock `lock`, taken on a connection of its own and released
 * after; undefined, without running it, when another process holds it.
 */
export async function whileLocked<T>(em: EntityManager, lock: number, run: () => Promise<T>): Promise<T | undefined> {
  return oauthDb(em)
    .connection()
    .execute(async (connection) => {
      const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_lock(${lock}) as got`.execute(connection);
      if (!rows[0].got) return undefined;
      try {
        return await run();
      } finally {
        await sql`select pg_advisory_unlock(${lock})`.execute(connection);
      }
    });
}

/**
 * The token's row, if any: whether it is revoked, and its user's role in its business now (null: no longer a
 * member). One statement, the access token's revocation-and-membership check.
 */
export async function tokenStanding(
  em: EntityManager,
  business: string,
  tokenId: string,
): Promise<{ revoked: boolean; role: MembershipRole | null } | undefined> {
  return oauthDb(em)
    .selectFrom('oauth_token as t')
    .select((eb) => [
      eb('t.revoked_at', 'is not', null).$castTo<boolean>().as('revoked'),
      eb.selectFrom('membership as m').select('m.role').whereRef('m.user_id', '=', 't.user_id').whereRef('m.business_id', '=', 't.business_id').as('role'),
    ])
    .where('t.business_id', '=', business)
    .where('t.id', '=', tokenId)
    .executeTakeFirst();
}

/** The failures counted on the throttle row `key` in its current window of `window`, and the ms left of that window. */
export async function throttleFailures(em: EntityManager, key: string, window: string): Promise<{ failures: number; ms: number } | undefined> {
  return oauthDb(em)
    .selectFrom('sign_in_throttle')
    .select(['failures', sql<number>`ceil(extract(epoch from window_started_at + ${window}::interval - now()) * 1000)::int`.as('ms')])
    .where('key', '=', key)
    .where('window_started_at', '>', ago(window))
    .executeTakeFirst();
}

/**
 * One more failure on the throttle row `key`, in one atomic upsert (concurrent failures from several processes all
 * count): a window over starts again at 1.
 */
export async function countThrottleFailure(em: EntityManager, key: string, window: string): Promise<void> {
  const over = sql<boolean>`sign_in_throttle.window_started_at <= ${ago(window)}`;
  await oauthDb(em)
    .insertInto('sign_in_throttle')
    .values({ key, failures: 1, window_started_at: sql<Date>`now()` })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({
        failures: sql<number>`case when ${over} then 1 else sign_in_throttle.failures + 1 end`,
        window_started_at: sql<Date>`case when ${over} then now() else sign_in_throttle.window_started_at end`,
      }),
    )
    .execute();
}

export async function clearThrottle(em: EntityManager, key: string): Promise<void> {
  await oauthDb(em).deleteFrom('sign_in_throttle').where('key', '=', key).execute();
}
