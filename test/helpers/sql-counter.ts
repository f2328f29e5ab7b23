import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * Records every SQL statement the ORM's connection runs (queries, BEGIN/COMMIT, raw execute) by wrapping its
 * query logger, which MikroORM calls once per statement whatever the debug setting.
 */
export function countStatements(orm: MikroORM) {
  const connection = orm.em.getConnection() as unknown as { logQuery: (query: string, context?: unknown) => void };
  const original = connection.logQuery;
  const statements: string[] = [];
  connection.logQuery = function (this: unknown, query: string, context?: unknown) {
    statements.push(query);
    return original.call(this, query, context);
  };
  return {
    statements,
    reset: () => void (statements.length = 0),
    restore: () => void (connection.logQuery = original),
  };
}
