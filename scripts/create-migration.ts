/**
 * Writes src/db/migrations/Migration<timestamp>.ts: the difference between the entities and the schema that the
 * committed migrations produce. Needs DATABASE_URL pointing at a server where it may create a scratch database.
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run migration:create
 */
import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../src/db/orm.config.js';

const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
// One scratch database per run: several checkouts may create migrations on one server at once.
base.pathname = `/feedback_migration_scratch_${process.pid}`;
const orm = await MikroORM.init(ormConfig(base.toString()));
await orm.schema.ensureDatabase();
await orm.schema.drop({ dropMigrationsTable: true });
await orm.migrator.up();
const result = await orm.migrator.create(undefined, false, process.argv[2] === '--initial');
console.log(result.fileName ? `created ${result.fileName}` : 'entities and migrations agree: nothing to create');
await orm.schema.dropDatabase();
await orm.close(true);
