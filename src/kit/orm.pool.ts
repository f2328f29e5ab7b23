import type { EntityManager } from '@mikro-orm/core';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';

/**
 * The ORM's own `pg` pool, for the statements that skip the query builder and its row mapping (the hot paths'
 * prepared SQL, LISTEN connections, batched reads). Its connections are not a request's transaction.
 */
export function ormPool(em: EntityManager): Promise<Pool> {
  return (em.getConnection() as unknown as PostgreSqlConnection).getNativeClient() as unknown as Promise<Pool>;
}

/** The ORM's statement log (protected in its types, called once per statement it runs). */
interface Logged {
  logQuery(query: string, context?: { took?: number; results?: number }): void;
}

/**
 * A read on the ORM's pool, logged as the ORM logs its own statements: its query log (and the tests' statement
 * counts) see it as they see every other read.
 */
export async function loggedQuery<R extends QueryResultRow = QueryResultRow, V extends unknown[] = unknown[]>(
  em: EntityManager,
  config: QueryConfig<V> & { rowMode?: 'array' },
): Promise<QueryResult<R>> {
  const pool = await ormPool(em);
  const started = Date.now();
  const result = await pool.query<R, V>(config as QueryConfig<V>);
  (em.getConnection() as unknown as Logged).logQuery(config.text, { took: Date.now() - started, results: result.rows.length });
  return result;
}
