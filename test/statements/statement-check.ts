import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { fingerprintSync } from 'libpg-query';
import { routing, type TenantTables } from './routing.js';

/**
 * The statement check of `npm test` (docs/scaling.md, "Every statement on one shard"): every statement the suite sent
 * (test/setup/statement-capture.mjs) that reads or writes a tenant table must be routable by Citus to one shard
 * (routing.ts), be a documented exception (spanning.json), or be debt listed in offenders.json, a list that only
 * shrinks. Run by jest's globalTeardown, which fails the run on what it returns.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPANNING = path.join(import.meta.dirname, 'spanning.json');
const OFFENDERS = path.join(import.meta.dirname, 'offenders.json');

interface Spanning {
  /** One statement (libpg-query's fingerprint), or every statement sent from files under `from`. */
  fingerprint?: string;
  from?: string;
  sql?: string;
  reason: string;
}
interface Offender {
  fingerprint: string;
  from: string;
  sql: string;
  unpinned: string[];
}
interface Seen {
  sql: string;
  origins: Set<string>; // the innermost project frame outside the kit, `file:line`
  tests: Set<string>;
}

export interface CheckOptions {
  dir: string;
  /** A database migrated as the tests' databases are: its catalog names the tenant tables. */
  databaseUrl: string;
  testNamePattern?: string;
  /** STATEMENT_OFFENDERS=write: rewrite offenders.json with today's offenders (a full run only). */
  write?: boolean;
}

const clip = (sql: string) => (sql.length > 400 ? `${sql.slice(0, 400)} …` : sql);
const fileOf = (origin: string) => origin.replace(/:\d+$/, '');

/**
 * The innermost frame outside the kit's SQL plumbing, which runs every repository's statements. A statement of the
 * ORM's own (an entity's load, a flush) often has no caller in its stack: its origin is then that plumbing.
 */
const PLUMBING = ['src/kit/db/db.ts', 'src/kit/db/entity.rows.ts', 'src/kit/db/write.batcher.ts', 'src/kit/replicas/'];
function originOf(frames: string[]): string {
  return frames.find((f) => !PLUMBING.some((p) => f.startsWith(p))) ?? frames[0] ?? 'unknown';
}

async function tenantTables(url: string): Promise<TenantTables> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `select distinct table_name from information_schema.columns where table_schema = 'public' and column_name = 'business_id'`,
    );
    // `business` is distributed by its own id, co-located with every table that names it.
    return new Map([['business', 'id'], ...rows.map((r) => [r.table_name, 'business_id'] as [string, string])]);
  } finally {
    await client.end();
  }
}

/** The test files of `npm test` (jest.config.js: roots, testMatch, testPathIgnorePatterns). */
function suiteFiles(): string[] {
  return ['test', 'src', 'rest-adapter']
    .flatMap((root) => fs.globSync(`${root}/**/*.test.ts`, { cwd: ROOT }))
    .filter((file) => !file.startsWith('test/browser/') && !file.includes('node_modules/'));
}

function readCapture(dir: string): { statements: Map<string, Seen>; tests: Set<string> } {
  const statements = new Map<string, Seen>();
  const tests = new Set<string>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.ndjson'))) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      let record: { sql?: string; from?: string[]; test: string };
      try {
        record = JSON.parse(line);
      } catch {
        continue; // a process killed mid-write (the tests kill services on purpose)
      }
      if (record.sql === undefined) {
        tests.add(record.test);
        continue;
      }
      const seen = statements.get(record.sql) ?? { sql: record.sql, origins: new Set(), tests: new Set() };
      seen.origins.add(originOf(record.from ?? []));
      seen.tests.add(record.test.replace(/ \(child process\)$/, ''));
      statements.set(record.sql, seen);
    }
  }
  return { statements, tests };
}

export async function checkStatements(options: CheckOptions): Promise<{ report: string; failures: string[] }> {
  const { statements, tests } = readCapture(options.dir);
  const tenant = await tenantTables(options.databaseUrl);
  const spanning: Spanning[] = JSON.parse(fs.readFileSync(SPANNING, 'utf8')).statements;
  const debt: Offender[] = fs.existsSync(OFFENDERS) ? JSON.parse(fs.readFileSync(OFFENDERS, 'utf8')).statements : [];
  const expected = suiteFiles();
  const full = !options.testNamePattern && expected.every((file) => tests.has(file));

  // One entry per fingerprint: texts that differ only in constants, IN-list lengths or whitespace are one statement.
  const byPrint = new Map<string, Seen>();
  const unparsed: Seen[] = [];
  for (const seen of statements.values()) {
    let print: string;
    try {
      print = fingerprintSync(seen.sql);
    } catch {
      unparsed.push(seen);
      continue;
    }
    const into = byPrint.get(print);
    if (!into) byPrint.set(print, { ...seen, origins: new Set(seen.origins), tests: new Set(seen.tests) });
    else {
      for (const o of seen.origins) into.origins.add(o);
      for (const t of seen.tests) into.tests.add(t);
      if (seen.sql.length < into.sql.length) into.sql = seen.sql;
    }
  }

  const counts = { statements: byPrint.size, tenant: 0, routable: 0, spanning: 0, offenders: 0 };
  const offenders: Array<Offender & { seen: Seen }> = [];
  const usedSpanning = new Set<Spanning>();
  for (const [fingerprint, seen] of byPrint) {
    const route = routing(seen.sql, tenant);
    if (route.kind !== 'dml' || route.tables.length === 0) continue;
    counts.tenant++;
    if (route.unpinned.length === 0) {
      counts.routable++;
      continue;
    }
    const allowed = spanning.find((s) => s.fingerprint === fingerprint || (s.from !== undefined && [...seen.origins].every((o) => o.startsWith(s.from!))));
    if (allowed) {
      usedSpanning.add(allowed);
      counts.spanning++;
      continue;
    }
    counts.offenders++;
    const from = [...seen.origins].map(fileOf).sort()[0];
    offenders.push({ fingerprint, from, sql: clip(seen.sql), unpinned: [...new Set(route.unpinned)], seen });
  }

  const listed = new Map(debt.map((d) => [d.fingerprint, d]));
  const fresh = offenders.filter((o) => !listed.has(o.fingerprint));
  const gone = debt.filter((d) => !byPrint.has(d.fingerprint) || !offenders.some((o) => o.fingerprint === d.fingerprint));
  const staleSpanning = spanning.filter((s) => s.fingerprint && !usedSpanning.has(s));

  const byFile = new Map<string, number>();
  for (const o of offenders) byFile.set(o.from, (byFile.get(o.from) ?? 0) + 1);
  const lines = [
    `Statements${full ? '' : ` (${tests.size} of ${expected.length} test files: a partial run, only new offenders fail)`}: ` +
      `${counts.statements} seen, ${counts.tenant} on tenant tables: ${counts.routable} routable to one shard, ` +
      `${counts.spanning} spanning businesses (allowed, spanning.json), ${counts.offenders} offenders (debt, offenders.json: ${debt.length} listed)` +
      (unparsed.length ? `; ${unparsed.length} not parsed` : ''),
    ...[...byFile].sort((a, b) => b[1] - a[1]).map(([file, n]) => `  ${String(n).padStart(4)}  ${file}`),
  ];

  const failures: string[] = [];
  if (options.write && full) {
    const entries = offenders
      .map(({ fingerprint, from, sql, unpinned }) => ({ fingerprint, from, sql, unpinned }))
      .sort((a, b) => a.from.localeCompare(b.from) || a.fingerprint.localeCompare(b.fingerprint));
    fs.writeFileSync(
      OFFENDERS,
      `${JSON.stringify({ about: 'docs/scaling.md, "Every statement on one shard": debt that only shrinks', statements: entries }, null, 2)}\n`,
    );
    lines.push(`offenders.json rewritten: ${entries.length} statements (was ${debt.length}).`);
  } else {
    for (const o of fresh) {
      failures.push(
        `A statement not routable to one shard (${o.unpinned.join(', ')} without a business_id equality), fingerprint ${o.fingerprint}\n` +
          `    sent from ${[...o.seen.origins].slice(0, 3).join(', ')} in ${[...o.seen.tests].slice(0, 3).join(', ')}\n    ${clip(o.seen.sql)}`,
      );
    }
    // Listed but not sent this run: said, not failed. A statement only some runs send (a branch a race decides)
    // would otherwise fail every other run; the list is rewritten (STATEMENT_OFFENDERS=write) when one is fixed.
    if (full) {
      for (const d of gone) lines.push(`offenders.json lists a statement not sent as an offender this run: remove it once fixed (${d.fingerprint}, ${d.from})`);
      for (const s of staleSpanning) lines.push(`spanning.json allows a statement not sent this run (${s.fingerprint}: ${s.reason})`);
    }
  }
  if (unparsed.length) lines.push(...unparsed.slice(0, 5).map((s) => `  not parsed: ${clip(s.sql)}`));
  if (failures.length) {
    failures.push(
      'Filter each tenant table by business_id (and join tenant tables on it), or, for a statement that must span businesses, add it to test/statements/spanning.json with its reason (docs/scaling.md).',
    );
  }
  if (process.env.STATEMENT_REPORT) {
    const report = offenders.map(({ seen, ...o }) => ({ ...o, origins: [...seen.origins], tests: [...seen.tests] }));
    fs.writeFileSync(process.env.STATEMENT_REPORT, JSON.stringify({ counts, full, offenders: report, unparsed: unparsed.map((u) => u.sql) }, null, 2));
  }
  return { report: lines.join('\n'), failures };
}
