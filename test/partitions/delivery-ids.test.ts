import pino from 'pino';
import { HttpSender } from '../../src/senders/http.sender.js';
import { WebhookDeliveryTask } from '../../src/modules/webhook/webhook-delivery.task.js';
import { deliveryId } from '../../src/modules/webhook/webhook-delivery.entity.js';
import { idFor } from '../../src/shared/id.js';
import { createTenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createHook, makeEvent, WEBHOOK_TEST_ENV } from '../webhooks/webhook-helpers.js';

/**
 * One delivery per (event, webhook), now that webhook_delivery is partitioned by id and can hold no unique key
 * without it: a delivery's id is made from its event and webhook, and the deliveries from before partitioning keep
 * their unique (event, webhook) key in their partition. No workers run here: the fan-out is called by the test.
 */
let server: TestServer;
let task: WebhookDeliveryTask;
let sender: HttpSender;
beforeAll(async () => {
  server = await startTestServer({ env: WEBHOOK_TEST_ENV });
  sender = new HttpSender({ timeoutMs: 1_000, allowPrivateNetworks: true, userAgent: 'test' });
  task = new WebhookDeliveryTask(server.orm, sender, server.config.webhooks, pino({ level: 'silent' }), 'test');
});
afterAll(async () => {
  sender?.close();
  await server?.stop();
});

const sql = (text: string, params: unknown[] = []) => server.orm.em.getConnection().execute(text, params);
const deliveriesOf = (hook: string) => sql(`select id, event_id from webhook_delivery where webhook_id = ? order by id`, [hook]);

async function tenant(): Promise<{ api: Client; business: string }> {
  const t = await createTenant(server);
  return { api: client(server, t.headers), business: t.businessId };
}

it('fans an event out once however often it is fanned out, under the id made from the event and the webhook', async () => {
  const { api, business } = await tenant();
  const hook = await createHook(api, business, 'http://127.0.0.1:9/hook', ['metric.created']);
  await makeEvent(api, business, 'Taste');
  await task.fanOut();
  const [event] = await sql(`select id from event where business_id = ? and type = 'metric.created'`, [business]);
  expect(await deliveriesOf(hook.id)).toEqual([{ id: deliveryId(event.id, hook.id), event_id: event.id }]);
  // As after a crash between the deliveries' insert and the flag's clearing: pending again, fanned out again.
  await sql(`update event set fanout_pending = true where business_id = ?`, [business]);
  await Promise.all([task.fanOut(), task.fanOut()]);
  expect(await deliveriesOf(hook.id)).toEqual([{ id: deliveryId(event.id, hook.id), event_id: event.id }]);
});

it("makes in PostgreSQL (the fan-out's statement) the very id the service makes (test deliveries, redeliveries)", async () => {
  // Ids of any time and any random part, from every id kind's alphabet, 300 pairs in one statement.
  const pairs = Array.from({ length: 300 }, (_, i) => [idFor('event', Date.now() - i * 7_919_017, `e${i}`), idFor('webhook', Date.now() + i, `w${i}`)]);
  const made = await sql(`select webhook_delivery_id(p->>0, p->>1) as id from jsonb_array_elements(?::jsonb) with ordinality as x(p, n) order by n`, [
    JSON.stringify(pairs),
  ]);
  expect(made.map((r) => r.id)).toEqual(pairs.map(([event, hook]) => deliveryId(event, hook)));
});

it('gives a test event its delivery under the same kind of id, and the fan-out adds none', async () => {
  const { api, business } = await tenant();
  const hook = await createHook(api, business, 'http://127.0.0.1:9/hook', ['*']);
  const sent = (await api.data(`mutation($b: ID!, $id: ID!) { testWebhook(business: $b, id: $id) { id event { id } } }`, { b: business, id: hook.id }))
    .testWebhook;
  expect(sent.id).toBe(deliveryId(sent.event.id, hook.id));
  await task.fanOut(); // the test event is pending too (its business has a webhook)
  expect((await deliveriesOf(hook.id)).filter((d) => d.event_id === sent.event.id)).toEqual([{ id: sent.id, event_id: sent.event.id }]);
});

it('keeps a delivery from before partitioning alone: its partition keeps the unique (event, webhook) key', async () => {
  const { api, business } = await tenant();
  const hook = await createHook(api, business, 'http://127.0.0.1:9/hook', ['metric.created']);
  await task.fanOut();
  // An event of last year and its delivery as the service wrote them before: a random id of the delivery's time.
  const at = Date.now() - 365 * 86_400_000;
  const event = idFor('event', at, 'old event');
  const old = idFor('webhookDelivery', at + 1_000, 'random');
  await sql(`insert into event (id, business_id, type, data, created_at) values (?, ?, 'metric.created', '{}', ?)`, [event, business, new Date(at)]);
  await sql(
    `insert into webhook_delivery (id, business_id, webhook_id, event_id, event_type, status, attempt_count, attempts, created_at, updated_at)
     values (?, ?, ?, ?, 'metric.created', 'succeeded', 1, '[]', ?, ?)`,
    [old, business, hook.id, event, new Date(at), new Date(at)],
  );
  expect((await sql(`select tableoid::regclass::text as p from webhook_delivery where id = ?`, [old]))[0].p).toBe('webhook_delivery_legacy');
  await task.fanOut(); // the event is pending: its trigger saw the enabled webhook
  expect(await deliveriesOf(hook.id)).toEqual([{ id: old, event_id: event }]);
});
