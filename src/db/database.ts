import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormConfig } from './orm.config.js';
import { redactUrl, type Config } from '../config.js';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { flushSignals } from '../kit/signals/signals.js';

export interface Database {
  orm: MikroORM;
  /** Set when we run the embedded PostgreSQL. */
  embedded?: EmbeddedPostgres;
  /** Closes the ORM, then stops PostgreSQL if we started it. Safe to call twice. */
  close(): Promise<void>;
}

export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * DATABASE_URL when given, else the embedded PostgreSQL under the data dir. Then migrations, always: the schema is
 * only ever changed by committed migrations, never by schema:update.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'> & Partial<Pick<Config, 'databaseReplicaUrls' | 'replicaMaxLagMs'>>,
  logger?: Logger,
  options: { reuseRunning?: boolean; ephemeral?: boolean } = {},
): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    // Imported lazily: a deployment with DATABASE_URL never loads the embedded server's code.
    const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
    embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      reuseRunning: options.reuseRunning,
      ephemeral: options.ephemeral,
      log: (m) => logger?.info(m),
    });
    url = embedded.url;
  }
  try {
    const orm = await MikroORM.init(
      ormConfig(
        url,
        {},
        // Migrations run on the primary and reach the replicas by streaming; reads use them (src/kit/replicas/read.routing.ts).
        { urls: config.databaseReplicaUrls, maxLagMs: config.replicaMaxLagMs, log: (level, message, fields) => logger?.[level](fields, message) },
      ),
    );
    await checkConnection(orm, url);
    await orm.migrator.up();
    let closing: Promise<void> | undefined;
    return {
      orm,
      embedded,
      close: () =>
        (closing ??= (async () => {
          await flushSignals(orm.em);
          await orm.close(true);
          logger?.info('database connections closed');
          if (embedded?.owned) {
            await embedded.stop();
            logger?.info('embedded PostgreSQL stopped');
          }
        })()),
    };
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
}

async function checkConnection(orm: MikroORM, url: string) {
  try {
    await orm.em.getConnection().execute('select 1');
  } catch (err) {
    await orm.close(true).catch(() => {});
    throw new DatabaseUnavailableError(
      `Cannot reach PostgreSQL at ${redactUrl(url)}: ${(err as Error).message || (err as Error).name}. ` +
        'Check DATABASE_URL (or unset it to use the embedded database).',
    );
  }
}
