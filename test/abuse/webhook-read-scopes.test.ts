import type { Scope } from '../../src/auth/scopes.js';
import { issueToken } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { createHook, eventually, startDeliveryServer, type Tenant, type TestServer } from '../webhooks/webhook-helpers.js';

/**
 * Issue 33: a webhook carries event payloads (an order's customer e-mail and phone), so subscribing to events, and
 * reading them back in the delivery log, needs the read scope of what they carry: the rule live subscriptions follow.
 */
let server: TestServer;
let tenant: Tenant;
let owner: Client;
let business: string;
let inbox: Receiver;

beforeAll(async () => {
  ({ server, tenant, api: owner, business } = await startDeliveryServer());
  inbox = await startReceiver();
});
afterAll(async () => {
  await server?.stop();
  await inbox?.close();
});

async function tokenWith(scopes: readonly Scope[]) {
  const issued = await issueToken(server, {
    credential: tenant.credentialId,
    clientId: tenant.clientId,
    business,
    user: tenant.userId,
    scopes,
    withRefreshToken: false,
  });
  return { authorization: `Bearer ${issued.accessToken}` };
}

const CREATE = `mutation($b: ID!, $i: CreateWebhookInput!) { createWebhook(business: $b, input: $i) { id events } }`;

describe('subscribing a webhook', () => {
  it('to * or order.* without orders:read is refused (403 naming the scope), over GraphQL and REST', async () => {
    const headers = await tokenWith(['webhooks:read', 'webhooks:write']);
    const hooks = client(server, headers);
    for (const events of [['*'], ['order.created'], ['metric.created', 'order.updated']]) {
      const refused = await hooks.error(CREATE, { b: business, i: { url: `${inbox.url}/h`, events } });
      expect(refused.code).toBe('FORBIDDEN');
      expect(refused.message).toContain('orders:read');
    }
    const viaRest = await rest(server, 'POST', `/v2/businesses/${business}/webhooks`, { headers, body: { url: `${inbox.url}/h`, events: ['*'] } });
    expectError(viaRest, 403, 'forbidden');
    expect(viaRest.body.error.message).toContain('orders:read');
    expect(viaRest.body.error.message).toContain('submissions:read');

    // What the token may read, it may subscribe to.
    const ok = await hooks.data(CREATE, { b: business, i: { url: `${inbox.url}/h`, events: ['webhook.updated'] } });
    expect(ok.createWebhook.events).toEqual(['webhook.updated']);
    const orders = client(server, await tokenWith(['webhooks:write', 'orders:read']));
    expect((await orders.data(CREATE, { b: business, i: { url: `${inbox.url}/h`, events: ['order.created', 'order.updated'] } })).createWebhook.events).toEqual(
      ['order.created', 'order.updated'],
    );
  });

  it('cannot point an existing order webhook elsewhere, or widen one, without orders:read', async () => {
    const hook = await createHook(owner, business, `${inbox.url}/orders`, ['order.created']);
    const narrow = client(server, await tokenWith(['webhooks:read', 'webhooks:write', 'metrics:read']));
    const moved = await narrow.error(
      `mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {url: "https://attacker.example/steal"}) { id } }`,
      { b: business, id: hook.id },
    );
    expect(moved.code).toBe('FORBIDDEN');
    expect(moved.message).toContain('orders:read');

    const mine = (await narrow.data(CREATE, { b: business, i: { url: `${inbox.url}/m`, events: ['metric.created'] } })).createWebhook;
    const widened = await narrow.error(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {events: ["*"]}) { id } }`, {
      b: business,
      id: mine.id,
    });
    expect(widened.code).toBe('FORBIDDEN');
    expect(widened.message).toContain('orders:read');
    // A change that sends nothing new anywhere (its description) needs no more than webhooks:write.
    expect(
      (
        await narrow.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {description: "mine"}) { description } }`, {
          b: business,
          id: mine.id,
        })
      ).updateWebhook.description,
    ).toBe('mine');
  });
});

describe('the delivery log', () => {
  it("shows an order event's payload only to a token that may read orders", async () => {
    const hook = await createHook(owner, business, `${inbox.url}/log`, ['order.created']);
    const order = (
      await owner.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
        b: business,
        i: { externalOrderId: 'LOG-1', total: 10, currency: 'PKR', customerEmail: 'guest@example.com', customerPhoneNumber: '+923001234567' },
      })
    ).createOrder;
    const QUERY = `query($b: ID!, $w: ID!) { webhookDeliveries(business: $b, webhook: $w) { total data { id eventType status event { id type data } } } }`;
    const full = await eventually(async () => {
      const page = (await owner.data(QUERY, { b: business, w: hook.id })).webhookDeliveries;
      expect(page.total).toBe(1);
      expect(page.data[0].status).toBe('succeeded'); // settled: the log reads the same for both tokens below
      return page.data[0];
    });
    expect(full.event.data.object).toMatchObject({ id: order.id, customerEmail: 'guest@example.com' });

    // webhooks:read alone: the delivery and its status, never the event it carried.
    const headers = await tokenWith(['webhooks:read']);
    const hidden = (await client(server, headers).data(QUERY, { b: business, w: hook.id })).webhookDeliveries;
    expect(hidden.data).toEqual([{ id: full.id, eventType: 'order.created', status: full.status, event: null }]);
    const one = await client(server, headers).data(
      `query($b: ID!, $w: ID!, $id: ID!) { webhookDelivery(business: $b, webhook: $w, id: $id) { event { data } } }`,
      { b: business, w: hook.id, id: full.id },
    );
    expect(one.webhookDelivery.event).toBeNull();
    const viaRest = await rest(server, 'GET', `/v2/businesses/${business}/webhooks/${hook.id}/deliveries?expand=event`, { headers });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.data[0].event).toBeNull();
    expect(JSON.stringify(viaRest.body)).not.toContain('guest@example.com');

    // With orders:read as well, the payload is there.
    const reader = await client(server, await tokenWith(['webhooks:read', 'orders:read'])).data(QUERY, { b: business, w: hook.id });
    expect(reader.webhookDeliveries.data[0].event.data.object.id).toBe(order.id);
  });
});
