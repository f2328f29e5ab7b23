import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/db/orm.config.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../helpers/ports.js';
import { pgClients } from './statement-capture.mjs';

/**
 * One PostgreSQL for the whole run: DATABASE_URL's server when set, else a throwaway embedded cluster.
 * Migrations are applied once to a template database; each test file clones it (CREATE DATABASE ... TEMPLATE),
 * which also proves the migrations build the schema from an empty database.
 */
export const TEMPLATE_DB = `feedback_test_template_${process.pid}`;

export default async function globalSetup(_globalConfig?: unknown, projectConfig?: { setupFilesAfterEnv?: string[] }) {
  startStatementCapture(projectConfig);
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-test-pg-'));
    fs.chmodSync(dataDir, 0o755);
    const embedded: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), ephemeral: true });
    (globalThis as { __testPg?: EmbeddedPostgres }).__testPg = embedded;
    adminUrl = embedded.url;
  }
  const templateUrl = withDatabase(adminUrl, TEMPLATE_DB);
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const orm = await MikroORM.init(ormConfig(templateUrl));
  await orm.migrator.up();
  await orm.close(true);
  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DB;
}

/**
 * Every statement the suite sends is recorded for the routing check (test/statements/statement-check.ts), when the
 * run loads the capture (jest.config.js; not the browser suite) and STATEMENT_CHECK is not `off`.
 */
function startStatementCapture(projectConfig?: { setupFilesAfterEnv?: string[] }) {
  const loaded = projectConfig?.setupFilesAfterEnv?.some((file) => file.endsWith('statement-capture.setup.mjs'));
  if (!loaded || process.env.STATEMENT_CHECK === 'off') return;
  process.env.STATEMENT_CAPTURE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-statements-'));
  process.env.STATEMENT_CAPTURE_PG = JSON.stringify(pgClients());
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
