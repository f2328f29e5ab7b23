import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/db/orm.config.js';
import { flushSignals } from '../../src/kit/signals/signals.js';

export interface TestDatabase {
  url: string;
  name: string;
  orm: MikroORM;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests with `npm test` (jest globalSetup).');
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(adminUrl());
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A database of this test file's own, cloned from the migrated template; `orm` changes the ORM's configuration (its pool). */
export async function createTestDatabase(options: { empty?: boolean; orm?: Partial<Options> } = {}): Promise<TestDatabase> {
  const name = `feedback_test_${process.ppid}_${randomBytes(5).toString('hex')}`;
  const template = options.empty ? 'template0' : process.env.TEST_PG_TEMPLATE;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = databaseUrl(name);
  const orm = await MikroORM.init(ormConfig(url, options.orm));
  return {
    url,
    name,
    orm,
    async drop() {
      // What the service still has to NOTIFY goes first, as at a service's stop (db/database.ts): not after the close.
      await flushSignals(orm.em);
      await orm.close(true);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
