import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { migrationsList } from '../../src/db/migrations/index.js';
import { idFor, newId } from '../../src/shared/id.js';

/**
 * The partitioning migration (Migration20261127220000) on a database with 100,000 events and as many deliveries,
 * while writers and readers go on: each of them gives up on any lock it waits a second for (lock_timeout), so one
 * lock held a second fails the test.
 */
const MIGRATION = 'Migration20261127220000';
const EVENTS = 100_000;
const BUSINESSES = 50;
const DAY = 86_400_000;

let fresh: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  fresh = await createTestDatabase({ empty: true });
  await fresh.orm.migrator.up({ to: migrationsList[migrationsList.findIndex((m) => m.name === MIGRATION) - 1].name });
  admin = new pg.Client(fresh.url);
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await fresh?.drop();
});

const businesses = Array.from({ length: BUSINESSES }, (_, i) => `bus_${String(i).padStart(26, '0')}`);
const hooks = businesses.map((b) => b.replace('bus_', 'wh_'));
const data = JSON.stringify({
  object: { id: 'ord_x', object: 'order', total: 42.5, currency: 'EUR', items: [{ name: 'Pasta al forno', quantity: 2, price: 12.5 }], note: 'x'.repeat(200) },
});

/** 100,000 events over 59 days until yesterday, and a delivery of each to its business's webhook. */
async function populate() {
  await admin.query(`insert into business (id, name, created_at, updated_at) select unnest($1::text[]), 'B', now(), now()`, [businesses]);
  await admin.query(
    `insert into webhook (id, business_id, url, events, secret, enabled, created_at, updated_at)
     select unnest($1::text[]), unnest($2::text[]), 'http://127.0.0.1:9/x', '["*"]', 'whsec_x', true, now(), now()`,
    [hooks, businesses],
  );
  // Written as a restore would: the audience trigger has nothing to decide for rows already fanned out.
  await admin.query(`alter table event disable trigger user`);
  const start = Date.now() - 60 * DAY;
  for (let from = 0; from < EVENTS; from += 20_000) {
    const rows = Array.from({ length: 20_000 }, (_, k) => from + k);
    const at = rows.map((i) => start + Math.floor((i * 59 * DAY) / EVENTS));
    const events = rows.map((i, k) => idFor('event', at[k], String(i)));
    const owners = rows.map((i) => businesses[i % BUSINESSES]);
    await admin.query(
      `insert into event (id, business_id, type, data, created_at, fanout_pending)
       select e, b, 'order.created', $3::jsonb, to_timestamp(t / 1000.0), false from unnest($1::text[], $2::text[], $4::float8[]) as x(e, b, t)`,
      [events, owners, data, at],
    );
    await admin.query(
      `insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, status, attempt_count, attempts, created_at, updated_at)
       select d, b, replace(b, 'bus_', 'wh_'), e, 'order.created', 'succeeded', 1, '[]', to_timestamp(t / 1000.0), to_timestamp(t / 1000.0)
         from unnest($1::text[], $2::text[], $3::text[], $4::float8[]) as x(d, e, b, t)`,
      [rows.map((i, k) => idFor('webhookDelivery', at[k] + 1_000, String(i))), events, owners, at],
    );
  }
  await admin.query(`alter table event enable trigger user`);
  await admin.query(`analyze event; analyze webhook_delivery`);
}

interface Load {
  stop(): Promise<void>;
  statements: number;
  longestMs: number;
  errors: string[];
}

/** A writer and a reader of the service's shapes, in a loop, each on its own connection with lock_timeout = 1s. */
async function startLoad(url: string): Promise<Load> {
  const load: Load = { statements: 0, longestMs: 0, errors: [], stop: async () => {} };
  let stopping = false;
  const timed = async (c: pg.Client, text: string, values: unknown[]) => {
    const started = performance.now();
    try {
      await c.query(text, values);
      load.statements++;
    } catch (err) {
      load.errors.push((err as Error).message);
    }
    load.longestMs = Math.max(load.longestMs, performance.now() - started);
  };
  const clients = await Promise.all(
    [0, 1].map(async () => {
      const c = new pg.Client(url);
      await c.connect();
      await c.query(`set lock_timeout = '1s'`);
      return c;
    }),
  );
  const [writer, reader] = clients;
  let n = 0;
  const writing = (async () => {
    while (!stopping) {
      const business = businesses[n++ % BUSINESSES];
      const event = newId('event');
      await timed(writer, `insert into event (id, business_id, type, data, created_at) values ($1, $2, 'order.created', $3, now())`, [event, business, data]);
      await timed(
        writer,
        `insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, created_at, updated_at, next_attempt_at)
                           values ($1, $2, $3, $4, 'order.created', now(), now(), now())`,
        [newId('webhookDelivery'), business, business.replace('bus_', 'wh_'), event],
      );
    }
  })();
  const reading = (async () => {
    while (!stopping) {
      const business = businesses[n % BUSINESSES];
      await timed(reader, `select id, type, data, created_at from event where business_id = $1 order by created_at desc, id desc limit 20`, [business]);
      await timed(reader, `select id, status from webhook_delivery where webhook_id = $1 order by created_at desc, id desc limit 20`, [
        business.replace('bus_', 'wh_'),
      ]);
      await timed(reader, `select id from webhook_delivery where next_attempt_at is not null and webhook_id = $1 order by next_attempt_at limit 10`, [
        business.replace('bus_', 'wh_'),
      ]);
    }
  })();
  load.stop = async () => {
    stopping = true;
    await Promise.all([writing, reading]);
    await Promise.all(clients.map((c) => c.end()));
  };
  return load;
}

it('partitions 100,000 events online: nobody waits a second for a lock, and no row moves or goes', async () => {
  await populate();
  const files = (await admin.query(`select pg_relation_filenode('event') as event, pg_relation_filenode('webhook_delivery') as webhook_delivery`)).rows[0];
  const load = await startLoad(fresh.url);
  const before = load.statements;
  let migrated: Array<{ name: string }>;
  const started = performance.now();
  try {
    migrated = await fresh.orm.migrator.up();
  } finally {
    await load.stop();
  }
  const migrationMs = performance.now() - started;
  if (process.env.PARTITION_REPORT)
    console.log({ migrationMs: Math.round(migrationMs), loadStatements: load.statements, longestWaitMs: Math.round(load.longestMs) });
  expect(migrated.map((m) => m.name)).toContain(MIGRATION);
  expect(load.errors).toEqual([]);
  expect(load.statements - before).toBeGreaterThan(0);

  const one = async (text: string) => (await admin.query(text)).rows[0];
  for (const table of ['event', 'webhook_delivery']) {
    expect(await one(`select relkind from pg_class where oid = '${table}'::regclass`)).toEqual({ relkind: 'p' });
    // Every old row stayed where it was: the old table, its file untouched, is the legacy partition.
    expect(await one(`select pg_relation_filenode('${table}_legacy') as file`)).toEqual({ file: files[table] });
    expect(Number((await one(`select count(*) as n from ${table}_legacy where created_at < now() - interval '1 hour'`)).n)).toBe(EVENTS);
  }
  const written = Number((await one(`select count(*) as n from event where created_at > now() - interval '1 hour'`)).n);
  expect(written).toBeGreaterThan(0);
  expect(Number((await one(`select count(*) as n from event`)).n)).toBe(EVENTS + written);
  expect(Number((await one(`select count(*) as n from webhook_delivery`)).n)).toBe(EVENTS + written);
  // The partitions ahead take rows of their weeks, and the audience trigger runs on them.
  const ahead = await one(`select pg_get_expr(c.relpartbound, c.oid) as bound from pg_inherits i join pg_class c on c.oid = i.inhrelid
                            where i.inhparent = 'event'::regclass and c.relname <> 'event_legacy' order by c.relname limit 1`);
  const id = /FROM \('([^']+)'\)/.exec(ahead.bound)![1] + '0000000000000000';
  await admin.query(`insert into event (id, business_id, type, data, created_at) values ($1, $2, 'order.created', '{}', now())`, [id, businesses[0]]);
  expect(await one(`select tableoid::regclass::text as partition, fanout_pending from event where id = '${id}'`)).toEqual({
    partition: expect.stringMatching(/^event_\d{8}$/),
    fanout_pending: true,
  });
}, 180_000);
