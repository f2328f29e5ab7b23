import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './src/db/entities.js';
import { migrationsList } from './src/db/migrations/index.js';
import { PreparingClient } from './src/kit/db.js';

/**
 * The one ORM configuration, used by the server, the admin CLI, the tests and the migration generator.
 * Migrations are listed explicitly (no folder scan) so they run the same from sources, tests or a bundle.
 */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: {
      path: 'src/db/migrations',
      pathTs: 'src/db/migrations',
      migrationsList,
      snapshot: false,
      silent: true,
    },
    // Discovery validation happens in tests; start-up skips the cost.
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 20 },
    // The analytics trigger and its PL/pgSQL functions are written in their migration (Migration20261123175513): the
    // schema diff leaves hand-written triggers and routines alone instead of proposing to drop them.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    // Request handlers use em.fork(); touching the global context by mistake should fail loudly.
    allowGlobalContext: false,
    debug: false,
    ...overrides,
    // node-postgres's client, naming the statements the kit prepares (src/kit/db.ts), whatever else is set.
    driverOptions: { Client: PreparingClient, ...(overrides.driverOptions as object | undefined) },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/feedback');
