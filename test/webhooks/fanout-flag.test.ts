import pg from 'pg';
import { newId } from '../../src/shared/id.js';
import { createTenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createHook, makeEvent, WEBHOOK_TEST_ENV } from './webhook-helpers.js';

/**
 * Which events are pending fan-out: only those of a business with an enabled webhook, decided at insert by the
 * event's trigger; and the race with a webhook being created (or a live subscriber registered), closed by the
 * business's audience lock. No workers run
 * here, so the flags stay as the inserts left them.
 */
let server: TestServer;
const connections: pg.Client[] = [];
beforeAll(async () => {
  server = await startTestServer({ env: WEBHOOK_TEST_ENV });
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.end()));
  await server?.stop();
});

async function connection() {
  const c = new pg.Client({ connectionString: server.db.url });
  await c.connect();
  connections.push(c);
  return c;
}

async function tenant(): Promise<{ api: Client; business: string }> {
  const t = await createTenant(server);
  return { api: client(server, t.headers), business: t.businessId };
}

/** A new business and two connections to race in it: one creating a webhook, one inserting an event. */
async function webhookRace() {
  const { business } = await tenant();
  return { business, hooks: await connection(), events: await connection() };
}

const pending = async (type: string, business: string) =>
  (
    await server.orm.em
      .getConnection()
      .execute(`select fanout_pending as p from event where business_id = ? and type = ? order by created_at, id`, [business, type])
  ).map((r) => r.p as boolean | null);

let seq = 0;
const insertEvent = (c: pg.Client, business: string) =>
  c.query(`insert into event (id, business_id, type, data, created_at) values ($1, $2, 'metric.created', '{}', now()) returning fanout_pending`, [
    newId('event'),
    business,
  ]);
const insertWebhook = (c: pg.Client, business: string) =>
  c.query(
    `insert into webhook (id, business_id, url, events, secret, enabled, created_at, updated_at)
     values ($1, $2, 'http://127.0.0.1:9/x', '["*"]', 'whsec_x', true, now(), now())`,
    [`wh_flag_${++seq}`, business],
  );
const insertSubscriber = (c: pg.Client, business: string) =>
  c.query(`insert into event_subscriber (business_id, process, expires_at) values ($1, 'race', now() + interval '1 minute')`, [business]);
/** Whether a query is waiting on a lock now. */
const waiting = async (c: pg.Client) =>
  (
    await server.orm.em
      .getConnection()
      .execute(`select wait_event_type from pg_stat_activity where pid = ?`, [(c as unknown as { processID: number }).processID])
  )[0]?.wait_event_type === 'Lock';
/** Waits (up to a second) for `c`'s query to wait on a lock, and expects it to. */
async function expectWaiting(c: pg.Client) {
  for (let i = 0; i < 50 && !(await waiting(c)); i++) await new Promise((r) => setTimeout(r, 20));
  expect(await waiting(c)).toBe(true);
}
type Insert = (c: pg.Client, business: string) => Promise<pg.QueryResult>;
/** `held` runs in an open transaction; `blocked`, started then, waits on its lock until that commits. Returns its result. */
async function waitsForCommit(business: string, [holder, held]: [pg.Client, Insert], [waiter, blocked]: [pg.Client, Insert]) {
  await holder.query('begin');
  await held(holder, business);
  const waiting = blocked(waiter, business);
  await expectWaiting(waiter);
  await holder.query('commit');
  return waiting;
}

it('marks events pending only for a business with an enabled webhook', async () => {
  const { api, business } = await tenant();
  await makeEvent(api, business, 'Before');
  const hook = await createHook(api, business, 'http://127.0.0.1:9/hook', ['*']);
  await makeEvent(api, business, 'With');
  await api.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: false}) { id } }`, { b: business, id: hook.id });
  await makeEvent(api, business, 'Disabled');
  await api.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: true}) { id } }`, { b: business, id: hook.id });
  await makeEvent(api, business, 'Enabled again');
  expect(await pending('metric.created', business)).toEqual([false, true, false, true]);
  // The webhook's own creation and re-enabling are recorded in their transactions: pending too; not its disabling,
  // recorded once the webhook is written disabled (an update is written before its event), with nowhere to go.
  expect(await pending('webhook.created', business)).toEqual([true]);
  expect(await pending('webhook.updated', business)).toEqual([false, true]);
});

it('an event inserted while a webhook is being created waits for it and is pending once it commits', async () => {
  const { business, hooks, events } = await webhookRace();
  await waitsForCommit(business, [hooks, insertWebhook], [events, insertEvent]);
  expect(await pending('metric.created', business)).toEqual([true]);
});

it('a webhook created while an event is being written commits after it, and every later event is pending', async () => {
  const { business, hooks, events } = await webhookRace();
  await waitsForCommit(business, [events, insertEvent], [hooks, insertWebhook]); // the event committed first: not the webhook's
  await insertEvent(events, business);
  expect(await pending('metric.created', business)).toEqual([false, true]);
});

it('an event inserted while a process registers a live subscriber of its business waits for it and is marked for the live subscribers', async () => {
  const { business } = await tenant();
  const [registry, events] = [await connection(), await connection()];
  await insertEvent(events, business);
  const inserted = await waitsForCommit(business, [registry, insertSubscriber], [events, insertEvent]);
  // The insert returns the trigger's decision to its writer, who tells the live subscribers after the commit
  // (kit/signals/signals.ts): null is "no webhook, live subscribers", false "nobody".
  expect(inserted.rows).toEqual([{ fanout_pending: null }]);
  expect(await pending('metric.created', business)).toEqual([false, null]);
  await registry.query('delete from event_subscriber where business_id = $1', [business]);
});

it('webhooks created at once for a business that has none all succeed (no lock upgrade deadlock)', async () => {
  const { api, business } = await tenant();
  const created = await Promise.all(Array.from({ length: 6 }, (_, i) => createHook(api, business, `http://127.0.0.1:9/many-${i}`, ['*'])));
  expect(new Set(created.map((h) => h.id)).size).toBe(6);
});
