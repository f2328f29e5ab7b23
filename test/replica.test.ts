import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { jest } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createApp, type App } from '../src/app.js';
import { createLogger } from '../src/http/logger.js';
import { db as kysely } from '../src/kit/db/db.js';
import { allowReplicaReads, ReplicaConnection } from '../src/kit/replicas/replica.driver.js';
import { codeBlocks, fillPlaceholders, readDoc } from './helpers/docs.js';
import { freePort } from './helpers/ports.js';
import { createTenant, type Tenant } from './helpers/auth.js';
import { seedSurveys } from './helpers/seed.js';
import type { TestServer } from './helpers/server.js';

/**
 * A real streaming replica, made by the README's own commands ("Adding a streaming replica") from a throwaway
 * primary that this file starts with PostgreSQL's tools, both on 127.0.0.1; the service runs on them in this process
 * (openDatabase and createApp, as `npm start` does), with the README's DATABASE_URL and DATABASE_REPLICA_URLS. Which
 * server ran a read is read from the replica's own statement log (log_statement=all, inherited from the primary's
 * configuration by pg_basebackup) and from /metrics.
 */
jest.setTimeout(180_000);

const BIN = '/usr/lib/postgresql/15/bin';
/** REPLICA_MAX_LAG here: low, so that a paused replica is skipped after a short wait. */
const MAX_LAG_S = 2;
/** The replica's health figures are at most this old (replica.health.ts `staleness`: a check each second, 1 s timeout). */
const STALENESS_MS = 2_000;
/** The read-your-writes window: REPLICA_MAX_LAG + staleness. */
const WINDOW_MS = MAX_LAG_S * 1_000 + STALENESS_MS;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PostgreSQL refuses to run as root: its tools then run as the system's `postgres` user. */
const runAs =
  process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};

let dir: string;
let ports: { primary: number; replica: number };
let config: Config;
let database: Database;
let app: App;
let url: string;
/** A, a client that writes through the API; B, one that only reads (its data written straight into the primary). */
let a: Tenant;
let b: Tenant;
let bSurveys: string[];

/** A bash script as the postgres user, with PostgreSQL 15's tools first on the PATH; its output, or a failure with it. */
function shell(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `set -euo pipefail\n${script}`],
      { cwd: dir, ...runAs, env: { PATH: `${BIN}:${process.env.PATH}`, HOME: dir, PGCONNECT_TIMEOUT: '10' }, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

const serverUrl = (port: number, database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;

async function sql<R = Record<string, unknown>>(port: number, text: string, values: unknown[] = [], database = 'feedback'): Promise<R[]> {
  const client = new pg.Client(serverUrl(port, database));
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

/** Until the replica has replayed everything the primary has written so far. */
async function caughtUp() {
  const [{ lsn }] = await sql<{ lsn: string }>(ports.primary, 'select pg_current_wal_lsn()::text as lsn');
  for (let i = 0; i < 400; i++) {
    const [{ done }] = await sql<{ done: boolean }>(ports.replica, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn]);
    if (done) return;
    await sleep(50);
  }
  throw new Error('the replica did not catch up within 20 s');
}

/** Caught up, and past every window that keeps reads on the primary (the survey pages' memory after a change). */
async function settled() {
  await caughtUp();
  await sleep(WINDOW_MS + 200);
}

/** The replica's statement log from here on: `since()` gives what it logged after this call. */
function replicaLog() {
  const file = path.join(dir, 'replica.log');
  const from = fs.statSync(file).size;
  return { since: () => fs.readFileSync(file, 'utf8').slice(from) };
}

const gql = async (tenant: Tenant, query: string, variables: Record<string, unknown> = {}) => {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...tenant.headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const get = async (tenant: Tenant | undefined, route: string) => {
  const res = await fetch(`${url}${route}`, { headers: tenant?.headers ?? {} });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};

/** A metric's value from /metrics (0 when absent), `labels` as they are printed: `target="replica"`. */
async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const reads = async () => ({ replica: await metric('db_reads_total', 'target="replica"'), primary: await metric('db_reads_total', 'target="primary"') });

const SURVEY = `query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { id name } }`;
const SURVEYS = `query($b: ID!) { surveys(business: $b) { total data { id name steps { id } } } }`;

/** Every kind of lag-tolerant read B makes: GraphQL list and object, REST list and object, a CSV export, the guest page. */
async function readEverything() {
  const range = `from=${Date.now() - 86_400_000}&to=${Date.now() + 86_400_000}`;
  const answers = {
    list: await gql(b, SURVEYS, { b: b.businessId }),
    one: await gql(b, SURVEY, { b: b.businessId, id: bSurveys[0] }),
    rest: await get(b, `/v2/businesses/${b.businessId}/surveys?expand=steps`),
    restOne: await get(b, `/v2/businesses/${b.businessId}/surveys/${bSurveys[0]}`),
    csv: await get(b, `/v2/businesses/${b.businessId}/analytics/metrics?${range}&interval=total&format=csv`),
    guest: await get(undefined, `/survey/${b.businessId}/${bSurveys[0]}`),
  };
  expect(answers.list).toMatchObject({ status: 200, body: { data: { surveys: { total: 3 } } } });
  expect(answers.list.body.data.surveys.data[0].steps).toHaveLength(2);
  expect(answers.one).toMatchObject({ status: 200, body: { data: { survey: { id: bSurveys[0] } } } });
  expect(answers.rest.status).toBe(200);
  expect(JSON.parse(answers.rest.text)).toMatchObject({ total: 3 });
  expect(answers.restOne.status).toBe(200);
  expect(answers.csv).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/csv/) });
  expect(answers.guest).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/html/) });
  return answers;
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(BIN, 'pg_basebackup'))) throw new Error(`PostgreSQL 15's tools are needed in ${BIN} (Debian's postgresql-15)`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-replica-'));
  fs.chmodSync(dir, 0o755);
  if ('uid' in runAs) fs.chownSync(dir, runAs.uid!, runAs.gid!);
  ports = { primary: await freePort(), replica: await freePort() };
  while (ports.replica === ports.primary) ports.replica = await freePort();

  // A throwaway primary. Its replication lines are taken out of pg_hba.conf: the README's line lets the replica in.
  await shell(`initdb -D primary -U postgres --auth=trust -E UTF8 --no-sync > initdb.log`);
  fs.appendFileSync(
    path.join(dir, 'primary/postgresql.conf'),
    [
      `listen_addresses = '127.0.0.1'`,
      `port = ${ports.primary}`,
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      'fsync = off',
      // Copied to the replica by pg_basebackup: its log shows every statement it runs.
      `log_statement = 'all'`,
      '',
    ].join('\n'),
  );
  const hba = path.join(dir, 'primary/pg_hba.conf');
  fs.writeFileSync(hba, fs.readFileSync(hba, 'utf8').replace(/^\s*(local|host)\s+replication\s.*$/gm, ''));
  await shell(`pg_ctl -D primary -l primary.log -w start > /dev/null`);

  const readme = readDoc('README.md');
  const section = readme.slice(readme.indexOf('### Adding a streaming replica'), readme.indexOf('## Security'));
  const values = {
    'db-primary.example.com:5432': `127.0.0.1:${ports.primary}`,
    'db-replica.example.com:5433': `127.0.0.1:${ports.replica}`,
    'db-primary.example.com': '127.0.0.1',
    '-p 5432': `-p ${ports.primary}`,
    '-p 5433': `-p ${ports.replica}`,
    '10.0.0.12/32': '127.0.0.1/32',
    '/etc/postgresql/15/main/pg_hba.conf': hba,
    '/var/lib/postgresql/15/replica': path.join(dir, 'replica'),
  };
  const [commands] = codeBlocks(section, 'bash');
  const output = await shell(fillPlaceholders(commands, values));
  expect(output.trim().split('\n').pop()).toBe('t');

  // The service's role and database, made on the primary: the replica gets them by streaming.
  await sql(ports.primary, `create role feedback login password 'secret'`, [], 'postgres');
  await sql(ports.primary, 'create database feedback owner feedback', [], 'postgres');

  // The README's variables, as `npm start` would read them (a lower REPLICA_MAX_LAG, to wait less).
  const [start] = codeBlocks(section, 'sh');
  const env = Object.fromEntries([...fillPlaceholders(start, values).matchAll(/\b([A-Z_]+)='?([^'\s]+)'?/g)].map(([, name, value]) => [name, value]));
  expect(Object.keys(env)).toEqual(['DATABASE_URL', 'DATABASE_REPLICA_URLS', 'REPLICA_MAX_LAG']);
  config = loadConfig({
    ...env,
    REPLICA_MAX_LAG: String(MAX_LAG_S),
    RATE_LIMIT_API_PER_SECOND: '0',
    PORT: '4000',
    LOG_LEVEL: process.env.TEST_LOG ?? 'silent',
  });
  const logger = createLogger(config.logLevel);
  database = await openDatabase(config, logger);
  app = await createApp({ orm: database.orm, logger, config });
  url = `http://127.0.0.1:${await app.listen(0, '127.0.0.1')}`;

  const fixture = { orm: database.orm, config } as unknown as TestServer;
  a = await createTenant(fixture);
  b = await createTenant(fixture);
  bSurveys = (await seedSurveys(database.orm, b.businessId, 3, 2, 1)).surveys;
});

afterAll(async () => {
  await app?.stop();
  await database?.close();
  if (dir) {
    for (const cluster of ['replica', 'primary']) await shell(`pg_ctl -D ${cluster} -m immediate -w stop > /dev/null 2>&1 || true`).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

it("the README's commands make a streaming replica of the primary, and its variables point the service at both", async () => {
  expect(await sql(ports.replica, 'select pg_is_in_recovery() as standby')).toEqual([{ standby: true }]);
  expect(await sql(ports.primary, 'select count(*)::int as n from pg_stat_replication')).toEqual([{ n: 1 }]);
  expect(config.databaseUrl).toBe(`postgresql://feedback:secret@127.0.0.1:${ports.primary}/feedback`);
  expect(config.databaseReplicaUrls).toEqual([`postgresql://feedback:secret@127.0.0.1:${ports.replica}/feedback`]);
  // Migrations ran on the primary, and the replica has them by streaming.
  await caughtUp();
  expect(await sql(ports.replica, `select count(*)::int as n from information_schema.tables where table_name = 'survey'`)).toEqual([{ n: 1 }]);
});

it("lag-tolerant reads run on the replica: lists, objects, analytics' CSV, the guest page's survey", async () => {
  await settled();
  const before = await reads();
  const log = replicaLog();
  await readEverything();
  const statements = log.since();
  expect(statements).toMatch(/count\(\*\) over \(\).* from "survey"/); // the lists' page and total
  expect(statements).toMatch(/from "survey_step"/); // the lists' steps, through the request's loaders
  expect(statements).toMatch(/from "survey" as "s0" where/); // a single survey, found by the ORM
  expect(statements).toMatch(/analytics/); // the CSV export's rollups
  expect(statements).toMatch(/from "business"/); // the guest page's brand
  expect(statements).not.toMatch(/\b(insert|update|delete)\b/i);
  const after = await reads();
  // Seven: five requests, and the guest page's two (its survey and its business's brand, not yet in its memory).
  expect(after.replica - before.replica).toBe(7);
  expect(after.primary).toBe(before.primary);
});

it('a survey created and read back at once is found, with the replica paused: read-your-writes on the primary', async () => {
  await caughtUp();
  await sql(ports.replica, 'select pg_wal_replay_pause()');
  try {
    const before = await reads();
    const created = await gql(a, `mutation($b: ID!) { createSurvey(business: $b, input: {name: "Just made"}) { id } }`, { b: a.businessId });
    expect(created.status).toBe(200);
    const id = created.body.data.createSurvey.id as string;
    expect(await gql(a, SURVEY, { b: a.businessId, id })).toMatchObject({ status: 200, body: { data: { survey: { id, name: 'Just made' } } } });
    const rest = await get(a, `/v2/businesses/${a.businessId}/surveys/${id}`);
    expect(rest.status).toBe(200);
    expect(JSON.parse(rest.text)).toMatchObject({ data: { id, name: 'Just made' } });
    const list = await gql(a, SURVEYS, { b: a.businessId });
    expect(list.body.data.surveys.data.map((s: { id: string }) => s.id)).toContain(id);
    // The replica has not got it: the reads could only have found it on the primary.
    expect(await sql(ports.replica, 'select count(*)::int as n from survey where id = $1', [id])).toEqual([{ n: 0 }]);
    const after = await reads();
    expect(after.primary - before.primary).toBe(3);
    expect(after.replica).toBe(before.replica);
  } finally {
    await sql(ports.replica, 'select pg_wal_replay_resume()');
  }
});

it('a replica behind by more than REPLICA_MAX_LAG is skipped (reads answer fresh data), and used again once it catches up', async () => {
  await settled();
  await sql(ports.replica, 'select pg_wal_replay_pause()');
  try {
    await sql(ports.primary, `update survey set name = 'Renamed on the primary' where id = $1`, [bSurveys[1]]);
    await sleep(MAX_LAG_S * 1_000 + STALENESS_MS + 500);
    const before = await reads();
    const log = replicaLog();
    expect(await gql(b, SURVEY, { b: b.businessId, id: bSurveys[1] })).toMatchObject({
      status: 200,
      body: { data: { survey: { name: 'Renamed on the primary' } } },
    });
    const rest = await get(b, `/v2/businesses/${b.businessId}/surveys/${bSurveys[1]}`);
    expect(JSON.parse(rest.text)).toMatchObject({ data: { name: 'Renamed on the primary' } });
    expect(log.since()).not.toMatch(/from "survey"/);
    const after = await reads();
    expect(after.primary - before.primary).toBe(2);
    expect(after.replica).toBe(before.replica);
    expect(await metric('db_replica_usable', 'replica="replica-1"')).toBe(0);
    expect(await metric('db_replica_lag_seconds', 'replica="replica-1"')).toBeGreaterThan(MAX_LAG_S);
  } finally {
    await sql(ports.replica, 'select pg_wal_replay_resume()');
  }
  await caughtUp();
  // Past the figures' age, the next read waits for a fresh check, which finds the replica caught up.
  await sleep(STALENESS_MS + 200);
  const before = await reads();
  const log = replicaLog();
  expect(await gql(b, SURVEY, { b: b.businessId, id: bSurveys[1] })).toMatchObject({
    status: 200,
    body: { data: { survey: { name: 'Renamed on the primary' } } },
  });
  expect(log.since()).toMatch(/from "survey"/);
  expect((await reads()).replica - before.replica).toBe(1);
  expect(await metric('db_replica_usable', 'replica="replica-1"')).toBe(1);
  expect(await metric('db_replica_lag_seconds', 'replica="replica-1"')).toBeLessThanOrEqual(MAX_LAG_S);
});

it('an idle process sends the replica nothing: its lag is checked only when reads come', async () => {
  await sleep(STALENESS_MS); // a check begun by the last read has ended
  const log = replicaLog();
  await sleep(3_000);
  expect(log.since()).not.toMatch(/statement:|execute/);
});

it('a replica stopped mid-test costs no error: reads answer 200 with data, and it is used again when back', async () => {
  await settled();
  await readEverything(); // the replica was found usable by a check just now
  expect(await metric('db_replica_usable', 'replica="replica-1"')).toBe(1);
  const em = database.orm.em.fork() as EntityManager;
  const replica = em.getConnection('read');
  expect(replica).toBeInstanceOf(ReplicaConnection);
  const fallbacks = await metric('db_replica_fallbacks_total', 'replica="replica-1"');

  await shell('pg_ctl -D replica -m fast -w stop > /dev/null');
  // Statements sent to it now (before any check could notice) run on the primary: on its pool (the lists' path) and
  // through its Kysely (the ORM's finds and db(em)).
  const onPool = await (replica as ReplicaConnection).query<{ id: string }>('select id from survey where business_id = $1', [b.businessId]);
  expect(onPool).toHaveLength(3);
  const onKysely = await (replica as ReplicaConnection).getClient().selectFrom('survey').select('id').where('business_id', '=', b.businessId).execute();
  expect(onKysely).toHaveLength(3);
  expect(await metric('db_replica_fallbacks_total', 'replica="replica-1"')).toBeGreaterThanOrEqual(fallbacks + 1);
  for (let i = 0; i < 3; i++) await readEverything();
  expect(await metric('db_replica_usable', 'replica="replica-1"')).toBe(0);
  // A lag-tolerant read of the kit's (db(em)) goes to the primary now, with no statement tried on the replica.
  allowReplicaReads(em);
  expect(await kysely(em).selectFrom('survey').select('id').where('business_id', '=', b.businessId).execute()).toHaveLength(3);

  await shell(`pg_ctl -D replica -o '-p ${ports.replica}' -l replica.log -w start > /dev/null`);
  await caughtUp();
  await sleep(STALENESS_MS + 200);
  const before = await reads();
  const log = replicaLog();
  await readEverything();
  expect(log.since()).toMatch(/from "survey"/);
  // Five, or seven when the guest page's survey and brand were not in its memory any more.
  expect((await reads()).replica - before.replica).toBeGreaterThanOrEqual(5);
  expect(await metric('db_replica_usable', 'replica="replica-1"')).toBe(1);
});

it('/metrics shows reads by target and the replica lag', async () => {
  const text = await (await fetch(`${url}/metrics`)).text();
  expect(text).toMatch(/^db_reads_total\{target="replica"\} [1-9]/m);
  expect(text).toMatch(/^db_reads_total\{target="primary"\} [1-9]/m);
  expect(text).toMatch(/^db_replica_lag_seconds\{replica="replica-1"\} \d/m);
  expect(text).toMatch(/^db_replica_usable\{replica="replica-1"\} 1/m);
  expect(text).toMatch(/^db_replica_fallbacks_total\{replica="replica-1"\} [1-9]/m);
});
