import fs from 'node:fs';
import pg from 'pg';
import type { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { withDatabase } from './global-setup.js';

export default async function globalTeardown(globalConfig?: { testNamePattern?: string }) {
  // The statement check reads the migrated template's catalog, so it runs first; its failure fails the run after the
  // clean-up below.
  const failure = await statementCheck(globalConfig?.testNamePattern).catch((error: Error) => error);
  const embedded = (globalThis as { __testPg?: EmbeddedPostgres }).__testPg;
  if (embedded) {
    await embedded.stop(); // removes the throwaway cluster
  } else {
    // On a shared server, leave nothing behind.
    const admin = new pg.Client(process.env.TEST_PG_ADMIN_URL);
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE 'feedback_test_${process.pid}_%'`, [
        process.env.TEST_PG_TEMPLATE,
      ]);
      for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
  if (failure) throw failure;
}

/** test/statements/statement-check.ts over what the run captured (test/setup/statement-capture.mjs). */
async function statementCheck(testNamePattern: string | undefined): Promise<Error | undefined> {
  const dir = process.env.STATEMENT_CAPTURE_DIR;
  if (!dir) return undefined;
  const started = performance.now();
  try {
    const { checkStatements } = await import('../statements/statement-check.js');
    const { report, failures } = await checkStatements({
      dir,
      databaseUrl: withDatabase(process.env.TEST_PG_ADMIN_URL!, process.env.TEST_PG_TEMPLATE!),
      testNamePattern: testNamePattern || undefined,
      write: process.env.STATEMENT_OFFENDERS === 'write',
    });
    console.log(`\n${report}\n(statement check: ${Math.round(performance.now() - started)} ms)`);
    if (!failures.length) return undefined;
    const error = new Error(`statement check: ${failures.length - 1} failure(s)\n\n${failures.join('\n\n')}`);
    error.stack = error.message; // where it was thrown says nothing
    return error;
  } finally {
    // STATEMENT_CAPTURE_KEEP: what was captured stays, to check again after editing spanning.json.
    if (process.env.STATEMENT_CAPTURE_KEEP) console.log(`statements captured in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}
