import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import type { ReceivedRequest } from '../helpers/receiver.js';

/** Receivers run on 127.0.0.1: private networks allowed; a short retry schedule so retries happen within a test. */
// Events are made through the API in bursts of hundreds from one credential: its quota, tested in
// test/rate-limits.test.ts, would refuse some of them, so the webhook tests run without it. Test servers have it off
// already; this says so for the services tests start as child processes (startService), which do not get that default.
export const WEBHOOK_TEST_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300ms,600ms,600ms', RATE_LIMIT_API_PER_SECOND: '0' };

export async function startDeliveryServer(env: Record<string, string> = {}) {
  const server = await startTestServer({ env: { ...WEBHOOK_TEST_ENV, ...env }, workers: true });
  const tenant = await createTenant(server);
  return { server, tenant, api: client(server, tenant.headers), business: tenant.businessId };
}

export async function createHook(api: Client, business: string, url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
  return (
    await api.data(`mutation($b: ID!, $url: String!, $events: [String!]!) { createWebhook(business: $b, input: {url: $url, events: $events}) { id secret } }`, {
      b: business,
      url,
      events,
    })
  ).createWebhook;
}

/** A change that records one event (metric.created); answers the metric. */
export async function makeEvent(api: Client, business: string, name = 'Taste') {
  return (await api.data(`mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id createdAt } }`, { b: business, n: name }))
    .createMetric;
}

/** Verifies a received request exactly as a receiver would, with the standardwebhooks package unchanged. */
export function verify(secret: string, request: ReceivedRequest) {
  return new StandardWebhook(secret).verify(request.body, {
    'webhook-id': request.headers['webhook-id'] as string,
    'webhook-timestamp': request.headers['webhook-timestamp'] as string,
    'webhook-signature': request.headers['webhook-signature'] as string,
  });
}

export const DELIVERY_FIELDS =
  'id object eventType status attemptCount nextAttemptAt createdAt webhook { id } event { id type } attempts { at durationMs responseStatus responseBody error }';

export async function deliveriesOf(api: Client, business: string, webhook: string, where: Record<string, unknown> = {}) {
  return (
    await api.data(
      `query($b: ID!, $w: ID!, $where: WebhookDeliveryWhere) { webhookDeliveries(business: $b, webhook: $w, where: $where) { total data { ${DELIVERY_FIELDS} } } }`,
      { b: business, w: webhook, where },
    )
  ).webhookDeliveries;
}

/** Polls until `check` passes (or its last failure after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export type { TestServer, Tenant };
