import { jest } from '@jest/globals';
import pg from 'pg';
import { freePort } from './helpers/ports.js';
import { startService, waitForReady, type ServiceProcess } from './helpers/process.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startPgProxy, type PgProxy } from './helpers/pg-proxy.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { createTenant, type Tenant } from './helpers/auth.js';
import { liveClient } from './helpers/live.js';
import { minimal, uniqueId } from './ingest/ingest-helpers.js';
import type { TestServer } from './helpers/server.js';
import { connectCustomIntegration } from '../src/modules/integration/custom-integration.service.js';
import { SAFETY_POLL_MS } from '../src/worker/due.poll.js';
import { newId } from '../src/shared/id.js';

/**
 * Issue 38, items 2 and 3, on real processes (src/main.ts, API and workers) sharing one database. Process `a` reaches
 * PostgreSQL through a proxy that records every statement it sends, off the wire; `b` connects directly.
 *  - Idle, a process sends at most one statement per 10 s (the safety poll), yet starts a job queued by another
 *    connection within 1 s (LISTEN), runs a retry when it falls due, and finds work nobody told it of (the poll).
 *  - An order's or a submission's transaction sends no NOTIFY; the webhook and a live subscriber in the other
 *    process still get the event within 1 s.
 */
jest.setTimeout(240_000);

const PUBLIC_URL = 'http://localhost:4000';
/** A wake-up's bound (issue 38): the safety poll, SAFETY_POLL_MS, is what would find the work without one. */
const WAKE_MS = 1_000;
const RETRY_MS = 2_000;

let db: TestDatabase;
let proxy: PgProxy;
let a: ServiceProcess;
let b: ServiceProcess;
let receiver: Receiver;
let direct: pg.Client;
let tenant: Tenant;
let secret: string;
/** Answers 500 to the first request of each path under /flaky/, 200 to the rest. */
const flakySeen = new Set<string>();

const workersStarted = (service: ServiceProcess) => service.logs().some((l) => l.msg === 'workers started');

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startPgProxy(db.url);
  receiver = await startReceiver((r) => {
    if (!r.url.pathname.startsWith('/flaky/') || flakySeen.has(r.url.pathname)) return {};
    flakySeen.add(r.url.pathname);
    return { status: 500 };
  });
  const env = { PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: `${RETRY_MS}ms`, LOG_LEVEL: 'info' };
  a = startService({ ...env, DATABASE_URL: proxy.url, PORT: String(await freePort()) });
  b = startService({ ...env, DATABASE_URL: db.url, PORT: String(await freePort()) });
  await Promise.all([waitForReady(a), waitForReady(b)]);
  for (const since = Date.now(); !(workersStarted(a) && workersStarted(b)); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() - since > 30_000) throw new Error(`workers did not start:\n${a.output()}\n${b.output()}`);
  }
  const fixture = { orm: db.orm, config: { publicUrl: PUBLIC_URL } } as unknown as TestServer;
  tenant = await createTenant(fixture);
  ({ secret } = await connectCustomIntegration(db.orm.em.fork(), tenant.businessId));
  direct = new pg.Client(db.url);
  await direct.connect();
});

afterAll(async () => {
  for (const service of [a, b]) if (service && service.child.exitCode === null) service.child.kill('SIGTERM');
  await Promise.all([a?.exited, b?.exited]);
  await direct?.end();
  await proxy?.close();
  await receiver?.close();
  await db?.drop();
});

const gql = async (service: ServiceProcess, query: string, variables: Record<string, unknown> = {}) => {
  const res = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...tenant.headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as any;
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
};

/** A webhook of the tenant's business to `path` on the receiver, written by another connection (as the CLI would). */
async function webhookTo(path: string, events = ['*']) {
  await direct.query(
    `insert into webhook (id, business_id, url, events, secret, enabled, created_at, updated_at) values ($1, $2, $3, $4, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', true, now(), now())`,
    [newId('webhook'), tenant.businessId, `${receiver.url}${path}`, JSON.stringify(events)],
  );
}

/** An event of the tenant's business inserted by a plain connection, as any writer's insert; `notify` wakes the workers. */
async function plainEvent(type: string, notify: boolean): Promise<string> {
  const id = newId('event');
  await direct.query('begin');
  await direct.query(`insert into event (id, business_id, type, data, created_at) values ($1, $2, $3, '{"object":{}}', now())`, [id, tenant.businessId, type]);
  if (notify) await direct.query(`notify webhook_work`);
  await direct.query('commit');
  return id;
}

const deliveriesOf = (event: string) => receiver.requests.filter((r) => JSON.parse(r.body).id === event);

describe('an idle process', () => {
  it('sends at most 3 statements to PostgreSQL in 30 s (one look at every queue each SAFETY_POLL_MS)', async () => {
    // What start-up sends (migrations, LISTEN, the first looks) is over a moment after the workers started.
    await new Promise((r) => setTimeout(r, 3_000));
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 30_000));
    const sent = proxy.statements.filter((s) => s.at >= from && s.at < from + 30_000).map((s) => s.text.replace(/\s+/g, ' '));
    expect(sent.length <= 3 ? 'at most 3' : sent).toBe('at most 3');
    expect(sent.length).toBeGreaterThan(0); // the safety poll runs
  });

  it('starts a job that another connection queued (an insert and a NOTIFY) within 1 s', async () => {
    await webhookTo('/wake');
    const event = await plainEvent('wake.test', true);
    const committed = Date.now();
    const delivered = await receiver.waitFor((r) => r.url.pathname === '/wake' && JSON.parse(r.body).id === event, SAFETY_POLL_MS + 10_000);
    const took = Date.now() - committed;
    expect(delivered.headers['webhook-id']).toEqual(expect.stringMatching(/^whd_/));
    expect({ took, within: took < WAKE_MS }).toEqual({ took, within: true });
  });

  it('runs a retry when it falls due, with no notification', async () => {
    await direct.query(`update webhook set enabled = false where business_id = $1`, [tenant.businessId]);
    await webhookTo('/flaky/retry');
    const event = await plainEvent('retry.test', true);
    const first = await receiver.waitFor((r) => r.url.pathname === '/flaky/retry' && JSON.parse(r.body).id === event, 10_000);
    const failedAt = Date.now();
    expect(first.headers['webhook-id']).toEqual(expect.stringMatching(/^whd_/));
    // The retry is due RETRY_MS after the attempt (give or take its 20% jitter); nothing notifies it.
    await receiver.waitFor((r) => r.url.pathname === '/flaky/retry' && JSON.parse(r.body).id === event && r !== first, RETRY_MS + SAFETY_POLL_MS);
    const took = Date.now() - failedAt;
    expect(deliveriesOf(event)).toHaveLength(2);
    expect({ took, onTime: took >= RETRY_MS * 0.8 - 100 && took < RETRY_MS * 1.2 + WAKE_MS }).toEqual({ took, onTime: true });
  });

  it('finds work whose notification was lost within the safety poll', async () => {
    await direct.query(`update webhook set enabled = false where business_id = $1`, [tenant.businessId]);
    await webhookTo('/lost');
    const committed = Date.now();
    const event = await plainEvent('lost.test', false);
    await receiver.waitFor((r) => r.url.pathname === '/lost' && JSON.parse(r.body).id === event, SAFETY_POLL_MS + 10_000);
    expect(Date.now() - committed).toBeLessThan(SAFETY_POLL_MS + 5_000);
  });
});

describe("a writer's transaction", () => {
  it('sends no NOTIFY (orders, submissions); the webhook and a live subscriber of the other process get the event within 1 s', async () => {
    await direct.query(`update webhook set enabled = false where business_id = $1`, [tenant.businessId]);
    await webhookTo('/writes', ['order.created', 'submission.created']);
    const survey = (await gql(a, `mutation($b: ID!) { createSurvey(business: $b, input: {name: "Wake"}) { id } }`, { b: tenant.businessId })).createSurvey
      .id as string;
    const submit = async () =>
      (
        await gql(a, `mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, {
          b: tenant.businessId,
          s: survey,
        })
      ).createSubmission.id as string;
    const order = async () => {
      const res = await fetch(`${a.url}/webhooks/custom/${tenant.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify(minimal({ externalOrderId: uniqueId('wake') })),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as any).data.id as string;
    };

    // Every notification of the database, with the backend that sent it.
    const spy = new pg.Client(db.url);
    await spy.connect();
    const heard: Array<{ at: number; channel: string; pid: number; payload: string }> = [];
    spy.on('notification', (n) => heard.push({ at: Date.now(), channel: n.channel, pid: n.processId, payload: n.payload ?? '' }));
    for (const channel of ['webhook_work', 'events', 'feedback_work', 'case_work', 'account_mail']) await spy.query(`listen ${channel}`);
    const live = liveClient(b.url, tenant.headers.authorization);
    try {
      void live.listen(`subscription($b: ID!) { eventRecorded(business: $b, types: ["submission.created", "order.created"]) { id type data } }`, {
        b: tenant.businessId,
      });
      // Nothing acknowledges a subscription: write until one is heard.
      for (let i = 0; !live.received.length; i++) {
        if (i > 100) throw new Error('no event heard');
        await submit();
        await new Promise((r) => setTimeout(r, 100));
      }
      const phase = Date.now();
      const sentFrom = proxy.statements.length;

      const heardBefore = live.received.length;
      let written = Date.now();
      const submission = await submit();
      const [submitted] = (await live.until(heardBefore + 1, 5_000)).slice(heardBefore);
      const submissionHeard = Date.now() - written;
      expect(submitted.eventRecorded).toMatchObject({ type: 'submission.created', data: { object: { id: submission } } });
      const delivered = await receiver.waitFor((r) => r.url.pathname === '/writes' && JSON.parse(r.body).data.object.id === submission, 5_000);
      const submissionDelivered = Date.now() - written;
      expect(JSON.parse(delivered.body).type).toBe('submission.created');

      written = Date.now();
      const orderId = await order();
      await receiver.waitFor((r) => r.url.pathname === '/writes' && JSON.parse(r.body).data.object.id === orderId, 5_000);
      const orderDelivered = Date.now() - written;
      const orderHeard = await live.until(heardBefore + 2, 5_000).then(() => Date.now() - written);
      expect(live.received.at(-1).eventRecorded).toMatchObject({ type: 'order.created', data: { object: { id: orderId } } });
      await new Promise((r) => setTimeout(r, 200));

      const times = { submissionHeard, submissionDelivered, orderHeard, orderDelivered };
      expect(Object.values(times).every((ms) => ms < WAKE_MS) ? 'within 1 s' : times).toBe('within 1 s');

      // What `a` sent meanwhile, off the wire: no statement inside a transaction names NOTIFY...
      const sent = proxy.statements.slice(sentFrom);
      // (The order, nothing following it, is one statement committed alone: test/ingest/order-statements.test.ts.)
      expect(sent.some((s) => /insert into "?customer_order/i.test(s.text))).toBe(true);
      expect(sent.some((s) => s.inTransaction && /insert into "?submission/i.test(s.text))).toBe(true);
      // A NOTIFY statement or a pg_notify call (not a column named notify, as alert rules have).
      expect(sent.filter((s) => s.inTransaction && /^\s*notify\b|pg_notify\s*\(/i.test(s.text)).map((s) => s.text)).toEqual([]);
      // ...and every notification the database delivered came from a statement of `a`'s own, outside any transaction
      // (a trigger's pg_notify in the writer's transaction would be one more from its backend than its statements sent).
      const notifyCalls = new Map<number, number>();
      for (const s of proxy.statements)
        if (!s.inTransaction && s.backendPid) notifyCalls.set(s.backendPid, (notifyCalls.get(s.backendPid) ?? 0) + (s.text.match(/pg_notify\(/g)?.length ?? 0));
      const fromPid = new Map<number, number>();
      for (const n of heard.filter((n) => n.at >= phase)) fromPid.set(n.pid, (fromPid.get(n.pid) ?? 0) + 1);
      expect(fromPid.size).toBeGreaterThan(0);
      const unexplained = [...fromPid]
        .filter(([pid, count]) => (notifyCalls.get(pid) ?? 0) < count)
        .map(([pid, count]) => ({ pid, count, sent: notifyCalls.get(pid) ?? 0 }));
      expect(unexplained).toEqual([]);
    } finally {
      await live.dispose();
      await spy.end();
    }
  });
});
