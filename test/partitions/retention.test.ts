import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/db/orm.config.js';
import { maintainPartitions, refreshStatistics, PARTITIONS_AHEAD_MS, timePartitions, type TimePartition } from '../../src/kit/db/time-partitions.js';
import { idFor } from '../../src/shared/id.js';
import { deliveryId } from '../../src/modules/webhook/webhook-delivery.entity.js';
import { partitionedTables } from '../../src/worker/partition.runner.js';
import { startWorkers } from '../../src/worker/worker.runner.js';
import { createLogger } from '../../src/http/logger.js';
import { createTenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createHook, deliveriesOf, WEBHOOK_TEST_ENV } from '../webhooks/webhook-helpers.js';

/**
 * Tables that age out (issue 38 item 4): events and webhook deliveries live in weekly partitions by id, created ahead
 * and dropped whole past their retention (90 days for events by default, 30 for deliveries). Time moves here by the
 * `now` the maintenance is given: rows are made at the times they need, as ids carry their time.
 */
const DAY = 86_400_000;
let server: TestServer;
let api: Client;
let business: string;
/** Made by the second test, after the workers of the first have come and gone: no delivery is on its way. */
let hook: string;

beforeAll(async () => {
  server = await startTestServer({ env: WEBHOOK_TEST_ENV });
  const tenant = await createTenant(server);
  api = client(server, tenant.headers);
  business = tenant.businessId;
});
afterAll(() => server?.stop(), 60_000);

const sql = (text: string, params: unknown[] = []) => server.orm.em.getConnection().execute(text, params);
const tables = () => partitionedTables(server.config);
const em = () => server.orm.em.fork();
const partitionsOf = (table: string) => timePartitions(em(), table);
/** No gap from the first partition to the last, and the last far enough ahead of `now`. */
function expectContiguous(partitions: TimePartition[], now: number) {
  for (let i = 1; i < partitions.length; i++) expect(partitions[i].from).toBe(partitions[i - 1].to);
  expect(partitions[partitions.length - 1].to).toBeGreaterThanOrEqual(now + PARTITIONS_AHEAD_MS);
}

/** An event (and its delivery to `hook`) made at `ms`, written as the service writes them. */
async function rowsAt(ms: number, options: { due?: boolean } = {}) {
  const event = idFor('event', ms, randomUUID()); // not newId's monotonic ulid, which never goes back in time
  const at = new Date(ms);
  await sql(`insert into event (id, business_id, type, data, created_at) values (?, ?, 'metric.created', ?, ?)`, [
    event,
    business,
    JSON.stringify({ object: { id: 'mtr_x', object: 'metric' } }),
    at,
  ]);
  const delivery = deliveryId(event, hook);
  await sql(
    `insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, status, attempt_count, attempts, next_attempt_at, created_at, updated_at)
     values (?, ?, ?, ?, 'metric.created', ?, 1, '[]', ?, ?, ?)`,
    [delivery, business, hook, event, options.due ? 'failed' : 'succeeded', options.due ? at : null, at, at],
  );
  return { event, delivery };
}

const readEvent = async (id: string) => (await api.data(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id type } }`, { b: business, id })).event;
const exists = async (name: string) => (await sql(`select to_regclass(?) is not null as found`, [name]))[0].found as boolean;

it('creates partitions ahead when the workers start', async () => {
  // The migration made partitions a fortnight ahead; the ones starting after next week go, and come back at start.
  const soon = Date.now() + 7 * DAY;
  for (const table of ['event', 'webhook_delivery']) {
    for (const p of await partitionsOf(table)) if ((p.from ?? 0) > soon) await sql(`drop table "${p.name}"`);
    expect((await partitionsOf(table)).at(-1)!.to).toBeLessThan(Date.now() + PARTITIONS_AHEAD_MS);
  }
  const workers = await startWorkers({ orm: server.orm, logger: createLogger('silent'), config: server.config });
  await workers.stop();
  for (const table of ['event', 'webhook_delivery']) expectContiguous(await partitionsOf(table), Date.now());
});

it('gives the partitioned tables themselves planner statistics (autovacuum never analyzes them), once an hour at most', async () => {
  const lastAnalyze = async (table: string) =>
    (await sql(`select last_analyze from pg_stat_user_tables where relname = ?`, [table]))[0]?.last_analyze as Date | null;
  await sql(`select pg_stat_reset_single_table_counters('event'::regclass), pg_stat_reset_single_table_counters('webhook_delivery'::regclass)`);
  expect(await lastAnalyze('webhook_delivery')).toBeNull();
  const first = await maintainPartitions(em(), tables());
  expect(first.analyzed.sort()).toEqual(['event', 'webhook_delivery']);
  for (const table of ['event', 'webhook_delivery']) expect(await lastAnalyze(table)).not.toBeNull();
  expect((await maintainPartitions(em(), tables())).analyzed).toEqual([]);
  // A table that grew well past what its statistics saw is analyzed again, without waiting for the hour.
  const base = idFor('event', Date.now(), randomUUID());
  await sql(
    `with added as (insert into event (id, business_id, type, data, created_at) select ? || lpad(g::text, 6, '0'), ?, 'metric.created', '{}', now() from generate_series(1, 3000) g)
     select pg_stat_force_next_flush()`,
    [base, business],
  );
  expect(await refreshStatistics(em(), tables())).toEqual(['event']);
  expect(await refreshStatistics(em(), tables())).toEqual([]);
});

it('drops whole partitions past their retention and keeps every recent row and its API reads', async () => {
  hook = (await createHook(api, business, 'http://127.0.0.1:9/hook', ['*'])).id;
  const bound = (await partitionsOf('event'))[0].to; // the legacy partition's end: where the weekly ones start
  const now = bound + 100 * DAY;
  // Partitions up to `now` exist first (a maintenance that drops nothing), so rows can be made at any time until then.
  await maintainPartitions(
    em(),
    tables().map((t) => ({ ...t, retentionDays: 100_000 })),
    now,
  );
  const old = await rowsAt(bound - 200 * DAY); // in the legacy partition, with the tenant's own first events
  const weekAfterBound = await rowsAt(bound + DAY); // 99 days before `now`: past both retentions
  const month = await rowsAt(now - 40 * DAY); // past the deliveries' 30 days, within the events' 90
  const recent = await rowsAt(now - DAY);
  expect((await readEvent(old.event)).id).toBe(old.event);

  const outcome = await maintainPartitions(em(), tables(), now);
  expect(outcome.dropped).toEqual(expect.arrayContaining(['webhook_delivery_legacy', 'event_legacy']));
  for (const name of ['event_legacy', 'webhook_delivery_legacy']) expect(await exists(name)).toBe(false);
  for (const table of ['event', 'webhook_delivery']) {
    const retention = table === 'event' ? server.config.eventRetentionDays : 30;
    const partitions = await partitionsOf(table);
    // Only whole weeks past the retention went: the oldest left still holds rows within it.
    expect(partitions[0].to).toBeGreaterThan(now - retention * DAY);
    expect(partitions[0].to - 7 * DAY).toBeLessThanOrEqual(now - retention * DAY);
    expectContiguous(partitions, now);
  }
  const count = async (table: string, ids: string[]) => Number((await sql(`select count(*) as n from ${table} where id in (?)`, [ids]))[0].n);
  expect(await count('event', [old.event, weekAfterBound.event, month.event, recent.event])).toBe(2);
  expect(await count('webhook_delivery', [old.delivery, weekAfterBound.delivery, month.delivery, recent.delivery])).toBe(1);

  // What is left reads through the API as before.
  expect(await readEvent(recent.event)).toEqual({ id: recent.event, type: 'metric.created' });
  expect(await readEvent(month.event)).toEqual({ id: month.event, type: 'metric.created' });
  expect((await api.error(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id } }`, { b: business, id: old.event })).code).toBe('NOT_FOUND');
  const events = (await api.data(`query($b: ID!) { events(business: $b, pageSize: 100) { total data { id } } }`, { b: business })).events;
  expect(events.data.map((e: { id: string }) => e.id)).toEqual([recent.event, month.event]);
  const deliveries = await deliveriesOf(api, business, hook);
  expect(deliveries.data.map((d: { id: string; event: { id: string } }) => [d.id, d.event.id])).toEqual([[recent.delivery, recent.event]]);
});

it('keeps a week whose delivery is still being retried, and the events it shows, until the retries end', async () => {
  // A delivery made in the oldest week of deliveries left, then seen 130 days on: past both retentions.
  const start = (await partitionsOf('webhook_delivery'))[0].from!;
  const now = start + 130 * DAY;
  await maintainPartitions(
    em(),
    tables().map((t) => ({ ...t, retentionDays: 100_000 })),
    now,
  );
  const retrying = await rowsAt(start + DAY, { due: true });
  const week = (table: string) => partitionsOf(table).then((ps) => ps.find((p) => (p.from ?? -Infinity) <= start + DAY && start + DAY < p.to)!.name);
  const [deliveryWeek, eventWeek] = [await week('webhook_delivery'), await week('event')];

  const kept = await maintainPartitions(em(), tables(), now);
  expect(kept.kept.map((k) => k.name)).toEqual([deliveryWeek, eventWeek]);
  expect(await exists(deliveryWeek)).toBe(true);
  expect(await exists(eventWeek)).toBe(true);
  expect((await deliveriesOf(api, business, hook)).data.map((d: { event: { id: string } }) => d.event.id)).toContain(retrying.event);

  // A disabled webhook's waiting delivery holds nothing: it goes with its week, then its event's week goes too.
  await sql(`update webhook set enabled = false where id = ?`, [hook]);
  const dropped = await maintainPartitions(em(), tables(), now);
  expect(dropped.dropped).toEqual(expect.arrayContaining([deliveryWeek, eventWeek]));
  await sql(`update webhook set enabled = true where id = ?`, [hook]);
});

it('lets several processes maintain at once', async () => {
  const now = Math.max(...(await partitionsOf('event')).map((p) => p.to)) + 60 * DAY;
  const others = await Promise.all([0, 1, 2].map(() => MikroORM.init(ormConfig(server.db.url))));
  try {
    const before = new Set([...(await partitionsOf('event')), ...(await partitionsOf('webhook_delivery'))].map((p) => p.name));
    const outcomes = await Promise.all(others.map((orm) => maintainPartitions(orm.em.fork(), tables(), now)));
    const created = outcomes.flatMap((o) => o.created);
    const dropped = outcomes.flatMap((o) => o.dropped);
    // Each change made once, by whichever process got there first.
    expect(new Set(created).size).toBe(created.length);
    expect(new Set(dropped).size).toBe(dropped.length);
    expect(created.length).toBeGreaterThan(0);
    expect(dropped.length).toBeGreaterThan(0);
    const after = [...(await partitionsOf('event')), ...(await partitionsOf('webhook_delivery'))].map((p) => p.name);
    expect(after.sort()).toEqual([...before, ...created].filter((name) => !dropped.includes(name)).sort());
    for (const table of ['event', 'webhook_delivery']) expectContiguous(await partitionsOf(table), now);
  } finally {
    await Promise.all(others.map((orm) => orm.close(true)));
  }
});

it('keeps the schema diff clean however many partitions there are', async () => {
  expect((await server.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
});
