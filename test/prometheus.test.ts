import type { TestServer } from './helpers/server.js';
import type { Tenant } from './helpers/auth.js';
import type { Client } from './helpers/graphql.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { createHook, makeEvent, startDeliveryServer } from './webhooks/webhook-helpers.js';
import { minimal, webhookBusiness } from './ingest/ingest-helpers.js';

// GET /metrics as Prometheus scrapes it, after traffic at each door.
let server: TestServer;
let tenant: Tenant;
let api: Client;
let receiver: Receiver;
beforeAll(async () => {
  ({ server, tenant, api } = await startDeliveryServer({ METRICS_TOKEN: 'scrape-me', RATE_LIMIT_AUTH_FAILURES_PER_CLIENT: '1' }));
  receiver = await startReceiver();
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const scrape = async (token = 'scrape-me') => {
  const res = await fetch(`${server.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** The value of one sample, by metric name and labels in the order written. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : undefined;
}

describe('GET /metrics', () => {
  it('asks for METRICS_TOKEN when it is set', async () => {
    expect((await scrape('')).status).toBe(401);
    expect((await scrape('wrong')).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts requests by route template (never the raw path), GraphQL operations by name, ingested orders, refusals and webhook attempts', async () => {
    const rest = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/surveys`, { headers: tenant.headers });
    expect(rest.status).toBe(200);
    expect((await server.graphql('query Health { health { status } }')).status).toBe(200);
    const shop = await webhookBusiness(server);
    expect((await shop.post(minimal())).status).toBe(200);
    // Two wrong secrets for one client id: the second is refused by the failure limit (1 here).
    for (let i = 0; i < 2; i++) {
      await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials', clientId: tenant.clientId, clientSecret: 'wrong' }),
      });
    }
    // Subscribed to metric.created only: a hook on '*' also receives its own webhook.created, and the count below
    // would read 1 or 2 depending on which deliveries finished before the scrape.
    const hook = await createHook(api, tenant.businessId, receiver.url, ['metric.created']);
    expect(hook.id).toMatch(/^wh_/);
    await makeEvent(api, tenant.businessId);
    await receiver.waitFor();

    let text = '';
    // The attempt is counted once its outcome is recorded, just after the receiver answered.
    for (let i = 0; i < 50 && !sample(text, 'webhook_delivery_attempts_total{outcome="succeeded"}'); i++) {
      text = (await scrape()).text;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sample(text, 'http_requests_total{method="GET",route="/v2/businesses/:business/surveys",status="200"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/webhooks/custom/:business",status="200"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/graphql",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(tenant.businessId);
    expect(sample(text, 'graphql_operations_total{operation="Health",type="query",outcome="ok"}')).toBe(1);
    expect(sample(text, 'orders_ingested_total{result="created"}')).toBe(1);
    expect(sample(text, 'rate_limit_refusals_total{limit="auth-client"}')).toBe(1);
    expect(sample(text, 'webhook_delivery_attempts_total{outcome="succeeded"}')).toBe(1);
    expect(sample(text, 'job_queue_depth{queue="webhook_delivery"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'job_queue_oldest_age_seconds{queue="webhook_delivery"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });
});
