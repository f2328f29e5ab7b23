import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { freePort } from '../helpers/ports.js';
import { startService, waitForReady, type ServiceProcess } from '../helpers/process.js';
import { createHook, deliveriesOf, eventually, makeEvent, startDeliveryServer, verify, WEBHOOK_TEST_ENV } from './webhook-helpers.js';

/**
 * Delivery under faults, over real HTTP: the API runs in this process (no workers) and the delivering service
 * processes are real `src/main.ts` children on the same database, stopped, restarted and killed.
 */
let api: TestServer;
let tenant: Client;
let business: string;
const children: ServiceProcess[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  api = await startTestServer({ env: WEBHOOK_TEST_ENV });
  const t = await createTenant(api);
  tenant = client(api, t.headers);
  business = t.businessId;
});
afterAll(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
  await api?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function service(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = startService({
    ...WEBHOOK_TEST_ENV,
    DATABASE_URL: api.db.url,
    PORT: String(await freePort()),
    WEBHOOK_RATE_LIMIT: '1000',
    LOG_LEVEL: 'warn',
    ...env,
  });
  children.push(child);
  await waitForReady(child, 60_000);
  return child;
}

async function stop(child: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM') {
  child.child.kill(signal);
  await child.exited;
}

/** Event ids of the metric.created events delivered, each as often as it arrived. */
const deliveredEvents = (r: Receiver, hook: string) => r.requests.filter((q) => q.url.pathname === `/${hook}`).map((q) => JSON.parse(q.body).id as string);

async function burst(n: number, prefix: string) {
  for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => makeEvent(tenant, business, `${prefix} ${i + j}`)));
}

describe('delivery under faults', () => {
  it('two service processes on one database deliver each event once', async () => {
    const inbox = await startReceiver();
    receivers.push(inbox);
    const hook = await createHook(tenant, business, `${inbox.url}/two`, ['metric.created']);
    const [one, two] = await Promise.all([service(), service()]);
    await burst(100, 'two');
    await eventually(async () => expect(new Set(deliveredEvents(inbox, 'two')).size).toBe(100), 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveredEvents(inbox, 'two')).toHaveLength(100);
    for (const r of inbox.requests.filter((q) => q.url.pathname === '/two')) verify(hook.secret, r);
    await Promise.all([stop(one), stop(two)]);
  }, 150_000);

  it('a receiver down while the service restarts gets everything once it is back', async () => {
    const port = await freePort();
    const hook = await createHook(tenant, business, `http://127.0.0.1:${port}/down`, ['metric.created']);
    // Retries every 2 s for half a minute: long enough to outlast the restart.
    const env = { WEBHOOK_RETRY_SCHEDULE: Array(15).fill('2s').join(',') };
    let child = await service(env);
    await burst(20, 'down');
    // Attempts fail (connection refused) and are rescheduled; the service stops and starts again meanwhile.
    await eventually(async () => expect((await deliveriesOf(tenant, business, hook.id, { status: { eq: 'failed' } })).total).toBe(20), 20_000);
    await stop(child);
    expect(child.child.exitCode).toBe(0);
    const inbox = await startReceiver(() => ({}), { port });
    receivers.push(inbox);
    child = await service(env);
    await eventually(async () => expect(new Set(deliveredEvents(inbox, 'down')).size).toBe(20), 30_000);
    expect(deliveredEvents(inbox, 'down')).toHaveLength(20);
    await stop(child);
    expect(child.child.exitCode).toBe(0);
    // Longer than its bounded waits together (two starts of up to 60 s each, 20 s and 30 s), so that a slow start on
    // loaded CI cores fails on the wait that ran out, not on jest's clock.
  }, 240_000);

  it('kill -9 during a burst loses no delivery', async () => {
    const inbox = await startReceiver();
    receivers.push(inbox);
    await createHook(tenant, business, `${inbox.url}/kill`, ['metric.created']);
    const child = await service();
    const writing = burst(300, 'kill');
    await eventually(async () => expect(deliveredEvents(inbox, 'kill').length).toBeGreaterThan(30), 30_000);
    await stop(child, 'SIGKILL');
    await writing;
    // Leases of the killed process expire (30 s) and its work is done again by the next one.
    const next = await service();
    await eventually(async () => expect(new Set(deliveredEvents(inbox, 'kill')).size).toBe(300), 90_000);
    const delivered = deliveredEvents(inbox, 'kill');
    console.log(`kill -9 during a burst of 300: ${delivered.length - new Set(delivered).size} delivered twice`);
    await stop(next);
  }, 300_000);
});

describe('a hanging receiver', () => {
  it('is cut at 15 s and does not delay another webhook', async () => {
    const { server, api: hooks, business: bus } = await startDeliveryServer();
    const hanging = http.createServer(() => {}); // never answers
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const inbox = await startReceiver();
    receivers.push(inbox);
    try {
      const slow = await createHook(hooks, bus, `http://127.0.0.1:${(hanging.address() as { port: number }).port}/`, ['metric.created']);
      await createHook(hooks, bus, `${inbox.url}/fast`, ['metric.created']);
      const started = Date.now();
      for (let i = 0; i < 10; i++) await makeEvent(hooks, bus, `hang ${i}`);
      await eventually(async () => expect(inbox.requests.filter((r) => r.url.pathname === '/fast')).toHaveLength(10), 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      const [first] = (
        await eventually(async () => {
          const page = await deliveriesOf(hooks, bus, slow.id, { status: { eq: 'failed' } });
          expect(page.total).toBeGreaterThan(0);
          return page;
        }, 25_000)
      ).data;
      expect(first.attempts[0].error).toBe('timeout');
      // Node's timers count from the event loop's cached clock, which can be a millisecond behind performance.now() when
      // the timer is set: the cut lands at 15 s to within that (CI once recorded 14,999 ms).
      expect(first.attempts[0].durationMs).toBeGreaterThanOrEqual(14_990);
      expect(first.attempts[0].durationMs).toBeLessThan(16_500);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
      await server.stop();
    }
  }, 60_000);
});
