import pg from 'pg';
import pino from 'pino';
import { WebhookDeliveryTask } from '../../src/modules/webhook/webhook-delivery.task.js';
import { claimDeliveries, DELIVERIES_DUE_CHANNEL, fanOutEvents, releaseWebhooks } from '../../src/modules/webhook/webhook.repo.js';
import { HttpSender } from '../../src/senders/http.sender.js';
import { createTenant } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createHook, eventually, makeEvent, WEBHOOK_TEST_ENV } from './webhook-helpers.js';

/**
 * A webhook's deliveries are leased by one worker at a time, held on the webhook's own row: another worker leases
 * none of them while the hold lasts, and all that are due once it is given back (shutdown) or has run out (a worker
 * that died). A worker leases per webhook up to its lane's depth, less what it says it holds. No workers run here:
 * the two workers are two ids calling the claim as the delivery loop does.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: WEBHOOK_TEST_ENV });
});
afterAll(async () => {
  await server?.stop();
});

const claim = (worker: string, held: Record<string, number> = {}) =>
  claimDeliveries(server.orm.em.fork(), { limit: 100, leaseMs: 30_000, worker, cap: 4, heldBack: [], slow: [], depth: 4, held });

it('leases a webhook to one worker at a time, up to its lane less what it holds, and to another once given back or run out', async () => {
  const tenant = await createTenant(server);
  const api = client(server, tenant.headers);
  const hook = await createHook(api, tenant.businessId, 'http://127.0.0.1:9/hook', ['metric.created']);
  for (let i = 0; i < 9; i++) await makeEvent(api, tenant.businessId, `Metric ${i}`);
  expect((await fanOutEvents(server.orm.em.fork(), 100, new Date())).events).toBeGreaterThanOrEqual(9);

  const first = await claim('worker-a');
  expect(first).toHaveLength(4);
  expect(new Set(first.map((d) => d.webhook_id))).toEqual(new Set([hook.id]));
  // Held by worker-a: worker-b gets nothing of it, and worker-a nothing more while its lane is full.
  expect(await claim('worker-b')).toEqual([]);
  expect(await claim('worker-a', { [hook.id]: 4 })).toEqual([]);
  // Two of its four attempts over: two more.
  const second = await claim('worker-a', { [hook.id]: 2 });
  expect(second).toHaveLength(2);
  expect(second.map((d) => d.id).filter((id) => first.some((d) => d.id === id))).toEqual([]);

  // Given back (worker-a stops): worker-b leases what is due and not leased.
  await releaseWebhooks(server.orm.em.fork(), 'worker-a');
  const third = await claim('worker-b');
  expect(third).toHaveLength(3);
  expect(await claim('worker-a')).toEqual([]);

  // worker-b dies holding it: once its hold has run out, worker-a leases again (the deliveries' own leases ran out too).
  await server.orm.em.getConnection().execute(`update webhook set leased_until = now() - interval '1 second' where id = ?`, [hook.id]);
  await server.orm.em
    .getConnection()
    .execute(`update webhook_delivery set locked_until = now() - interval '1 second' where webhook_id = ? and locked_by = 'worker-b'`, [hook.id]);
  const fourth = await claim('worker-a');
  expect(fourth.map((d) => d.id).sort()).toEqual(third.map((d) => d.id).sort());
  const [row] = await server.orm.em.getConnection().execute(`select leased_by from webhook where id = ?`, [hook.id]);
  expect(row.leased_by).toBe('worker-a');
});

it('a fan-out leases what it makes to its worker as a claim would, and leaves the rest due for any worker', async () => {
  const tenant = await createTenant(server);
  const api = client(server, tenant.headers);
  const hook = await createHook(api, tenant.businessId, 'http://127.0.0.1:9/hook', ['metric.created']);
  const lanes = (worker: string) => ({ limit: 100, leaseMs: 30_000, worker, cap: 4, heldBack: [], slow: [], depth: 4, held: {} });
  const rowsOf = async () =>
    (await server.orm.em.getConnection().execute(`select id, locked_by from webhook_delivery where webhook_id = ? order by id`, [hook.id])) as Array<{
      id: string;
      locked_by: string | null;
    }>;

  // Six events: four deliveries born leased to worker-a (its lane's depth), with their event and secret; two left due.
  for (let i = 0; i < 6; i++) await makeEvent(api, tenant.businessId, `Metric ${i}`);
  const fanned = await fanOutEvents(server.orm.em.fork(), 100, new Date(), lanes('worker-a'));
  expect(fanned.made).toBe(6);
  expect(fanned.leased).toHaveLength(4);
  expect(fanned.leased[0]).toMatchObject({ webhook_id: hook.id, event_type: 'metric.created', url: 'http://127.0.0.1:9/hook', attempt_count: 0 });
  expect(fanned.leased[0].event_data).toMatchObject({ object: { object: 'metric' } });
  const rows = await rowsOf();
  expect(
    rows
      .filter((r) => r.locked_by === 'worker-a')
      .map((r) => r.id)
      .sort(),
  ).toEqual(fanned.leased.map((d) => d.id).sort());
  expect(rows.filter((r) => r.locked_by === null)).toHaveLength(2);
  const [held] = await server.orm.em.getConnection().execute(`select leased_by from webhook where id = ?`, [hook.id]);
  expect(held.leased_by).toBe('worker-a');

  // Held by worker-a: worker-b's fan-out makes the next event's delivery but leases none of it; worker-a's claim does.
  await makeEvent(api, tenant.businessId, 'Metric 6');
  const other = await fanOutEvents(server.orm.em.fork(), 100, new Date(), lanes('worker-b'));
  expect([other.made, other.leased.length]).toEqual([1, 0]);
  expect(await claim('worker-b')).toEqual([]);
  expect(await claim('worker-a', { [hook.id]: 1 })).toHaveLength(3);
});

it("a worker's fan-out tells every process's claims of what it could not lease, and nothing when it leased all", async () => {
  const tenant = await createTenant(server);
  const api = client(server, tenant.headers);
  const hook = await createHook(api, tenant.businessId, 'http://127.0.0.1:9/hook', ['metric.created']);
  const sender = new HttpSender({ timeoutMs: 1_000, allowPrivateNetworks: true, userAgent: 'test' });
  const task = new WebhookDeliveryTask(server.orm, sender, server.config.webhooks, pino({ level: 'silent' }), 'worker-c');
  const listener = new pg.Client(server.db.url);
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (n) => heard.push(n.channel));
  await listener.query(`listen ${DELIVERIES_DUE_CHANNEL}`);
  const lanes = { limit: 100, heldBack: [], slow: [], depth: 4, held: {} };
  try {
    await makeEvent(api, tenant.businessId, 'Leased');
    expect((await task.fanOut(100, lanes)).leased).toHaveLength(1);
    // Held by another worker: the delivery is left due, and the claims are told.
    await server.orm.em
      .getConnection()
      .execute(`update webhook set leased_by = 'worker-d', leased_until = now() + interval '1 minute' where id = ?`, [hook.id]);
    await makeEvent(api, tenant.businessId, 'Left');
    expect(heard).toEqual([]);
    const left = await task.fanOut(100, lanes);
    expect([left.made, left.leased.length]).toEqual([1, 0]);
    await eventually(async () => expect(heard).toEqual([DELIVERIES_DUE_CHANNEL]));
  } finally {
    await listener.end();
    sender.close();
  }
});

it('a fan-out whose clock was read before the event (its connection came late) makes no delivery older than the event', async () => {
  const tenant = await createTenant(server);
  const api = client(server, tenant.headers);
  const hook = await createHook(api, tenant.businessId, 'http://127.0.0.1:9/hook', ['metric.created']);
  const before = new Date(Date.now() - 5_000);
  await makeEvent(api, tenant.businessId, 'Late fan-out');
  expect((await fanOutEvents(server.orm.em.fork(), 100, before)).made).toBeGreaterThanOrEqual(1);
  const rows = await server.orm.em
    .getConnection()
    .execute(`select d.created_at, e.created_at as event_created_at from webhook_delivery d join event e on e.id = d.event_id where d.webhook_id = ?`, [
      hook.id,
    ]);
  expect(rows).toHaveLength(1);
  expect(new Date(rows[0].created_at).getTime()).toBeGreaterThanOrEqual(new Date(rows[0].event_created_at).getTime());
});
