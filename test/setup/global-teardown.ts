import pg from 'pg';
import type { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';

export default async function globalTeardown() {
  const embedded = (globalThis as { __testPg?: EmbeddedPostgres }).__testPg;
  if (embedded) {
    await embedded.stop(); // removes the throwaway cluster
    return;
  }
  // On a shared server, leave nothing behind.
  const admin = new pg.Client(process.env.TEST_PG_ADMIN_URL);
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE 'feedback_test_${process.pid}_%'`,
      [process.env.TEST_PG_TEMPLATE],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
