import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.js';
import { migrationsList } from './migrations/index.js';
import { PreparingClient } from '../kit/db/db.js';
import { afterCommitSignals } from '../kit/signals/signals.js';
import { replicaAwareDriver, type ReplicaDriverOptions } from '../kit/replicas/replica.driver.js';

/** DATABASE_REPLICA_URLS and REPLICA_MAX_LAG, and who hears when a replica is skipped or used again. */
export interface ReplicaSettings extends ReplicaDriverOptions {
  urls?: readonly string[];
}

/**
 * How long a statement waits for a pooled connection (a free one, or a new one being connected), then fails: an
 * unreachable database is told within seconds, and a request is answered 503 (src/shared/database-unavailable.ts).
 */
const CONNECT_TIMEOUT_MS = 5_000;
/** A replica that does not answer is given up on sooner than the primary: its reads have the primary to go to. */
const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/**
 * The one ORM configuration, used by the server, the admin CLI, the tests and the migration generator.
 * Migrations are listed explicitly (no folder scan) so they run the same from sources, tests or a bundle.
 */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}, replicas: ReplicaSettings = {}): Options {
  const { urls = [], ...driverOptions } = replicas;
  return defineConfig({
    clientUrl,
    // MikroORM's PostgreSQL driver, choosing among `replicas` by health and lag (src/kit/replicas/replica.driver.ts).
    driver: replicaAwareDriver(driverOptions),
    replicas: urls.map((url, i) => ({
      name: `replica-${i + 1}`,
      clientUrl: url,
      driverOptions: { Client: PreparingClient, connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS },
    })),
    // Reads run on the primary unless marked lag-tolerant (src/kit/replicas/read.routing.ts): not every read outside a
    // transaction tolerates lag (a token's revocation, a link just e-mailed, the read after a write).
    preferReadReplicas: false,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: {
      path: 'src/db/migrations',
      pathTs: 'src/db/migrations',
      migrationsList,
      snapshot: false,
      silent: true,
      // Each migration in its own transaction, not all of them in one: a migration that must not hold its locks
      // throughout (Migration20261127220000 validates a constraint between two short transactions) can then run.
      allOrNothing: false,
    },
    // Discovery validation happens in tests; start-up skips the cost.
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 20 },
    // The analytics trigger and its PL/pgSQL functions are written in their migration (Migration20261123175513): the
    // schema diff leaves hand-written triggers and routines alone instead of proposing to drop them.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    // Request handlers use em.fork(); touching the global context by mistake should fail loudly.
    allowGlobalContext: false,
    // Wake-ups and live events leave once their transaction commits, never inside it (src/kit/signals/signals.ts).
    subscribers: [afterCommitSignals],
    debug: false,
    ...overrides,
    // node-postgres's client, naming the statements the kit prepares (src/kit/db/db.ts), and its wait for a connection;
    // an override's driver options are added to these.
    driverOptions: { Client: PreparingClient, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...(overrides.driverOptions as object | undefined) },
  });
}
