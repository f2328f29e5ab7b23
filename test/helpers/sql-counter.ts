import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * The access token's revocation-and-membership check (src/modules/oauth/token.service.ts). It runs at most once per token every
 * REVOCATION_CACHE_MS, on whichever request comes first: on a loaded machine a warm-up request and the measured one can
 * fall either side of that, so it is authentication, left out, never part of what a page costs.
 */
// As the repository's Kysely writes it (oauth.repo.ts tokenStanding): `from "oauth_token" as "t" where "t"."business_id" = $1
// and "t"."id" = $2`.
const TOKEN_CHECK = /from "?oauth_token"? (as )?"?t"? where "?t"?\."?business_id"? = \$1 and "?t"?\."?id"?/;

/**
 * Records every SQL statement the ORM's connection runs (queries, BEGIN/COMMIT, raw execute) by wrapping its
 * query logger, which MikroORM calls once per statement whatever the debug setting. `statements` holds what the
 * request itself ran (the token check left out).
 */
export function countStatements(orm: MikroORM) {
  const connection = orm.em.getConnection() as unknown as { logQuery: (query: string, context?: unknown) => void };
  const original = connection.logQuery;
  const statements: string[] = [];
  connection.logQuery = function (this: unknown, query: string, context?: unknown) {
    if (!TOKEN_CHECK.test(query)) statements.push(query);
    return original.call(this, query, context);
  };
  return {
    statements,
    reset: () => void (statements.length = 0),
    restore: () => void (connection.logQuery = original),
  };
}
