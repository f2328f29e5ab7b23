import http from 'node:http';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createHook, deliveriesOf, eventually, makeEvent, startDeliveryServer, type TestServer } from './webhook-helpers.js';
import type { Client } from '../helpers/graphql.js';

let server: TestServer;
let api: Client;
let business: string;
const receivers: Receiver[] = [];
beforeAll(async () => {
  ({ server, api, business } = await startDeliveryServer());
});
afterAll(async () => {
  await server?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const sql = (text: string, values: unknown[] = []) => server.orm.em.getConnection().execute(text, values);

it('disables a webhook failing for 5 days once 3 deliveries are exhausted, and records webhook.disabled', async () => {
  const inbox = await startReceiver(() => ({ status: 500 }));
  receivers.push(inbox);
  const hook = await createHook(api, business, inbox.url, ['metric.created']);
  await makeEvent(api, business, 'Fail 1');
  await makeEvent(api, business, 'Fail 2');
  await eventually(async () => expect((await deliveriesOf(api, business, hook.id, { status: { eq: 'exhausted' } })).total).toBe(2), 15_000);
  // As if the streak began 6 days ago (the deliveries' own times are within it).
  await sql(`update webhook set failing_since = now() - interval '6 days' where id = ?`, [hook.id]);
  await sql(`update webhook_delivery set updated_at = now() - interval '1 day' where webhook_id = ?`, [hook.id]);
  let still = await api.data(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { enabled } }`, { b: business, id: hook.id });
  expect(still.webhook.enabled).toBe(true);
  await makeEvent(api, business, 'Fail 3');
  await eventually(async () => {
    still = await api.data(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { enabled } }`, { b: business, id: hook.id });
    expect(still.webhook.enabled).toBe(false);
  }, 15_000);
  const events = await api.data(`query($b: ID!) { events(business: $b, where: {type: {eq: "webhook.disabled"}}) { data { data } } }`, { b: business });
  expect(events.events.data.map((e: any) => [e.data.object.id, e.data.object.disabledReason])).toContainEqual([hook.id, 'failing']);
  // Re-enabled: the streak starts again, nothing is disabled at the next failure.
  await api.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: true}) { id } }`, { b: business, id: hook.id });
  const [row] = await sql(`select failing_since from webhook where id = ?`, [hook.id]);
  expect(row.failing_since).toBeNull();
}, 60_000);

it('graceful shutdown lets an attempt in flight finish and record it', async () => {
  const { server: own, api: ownApi, business: ownBusiness } = await startDeliveryServer();
  let arrived = false;
  const slow = http.createServer((_req, res) => {
    arrived = true;
    setTimeout(() => res.writeHead(200).end('late but fine'), 1_500);
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  try {
    const hook = await createHook(ownApi, ownBusiness, `http://127.0.0.1:${(slow.address() as { port: number }).port}/`, ['metric.created']);
    await makeEvent(ownApi, ownBusiness, 'Shutdown');
    await eventually(async () => expect(arrived).toBe(true));
    expect(own.workers!.inFlight).toBe(1);
    await own.workers!.stop();
    const [delivery] = (await deliveriesOf(ownApi, ownBusiness, hook.id)).data;
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(delivery.attempts[0].responseBody).toBe('late but fine');
    const [lease] = await own.orm.em.getConnection().execute(`select locked_until from webhook_delivery where id = ?`, [delivery.id]);
    expect(lease.locked_until).toBeNull();
  } finally {
    slow.close();
    await own.stop();
  }
}, 30_000);
