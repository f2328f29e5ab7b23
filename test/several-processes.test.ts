import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { freePort } from './helpers/ports.js';
import { startService, waitForReady, type ServiceProcess } from './helpers/process.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { createTenant, type Tenant } from './helpers/auth.js';
import { minimal, webhookBusiness, type WebhookBusiness } from './ingest/ingest-helpers.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import type { TestServer } from './helpers/server.js';
import { REVOCATION_CACHE_MS } from '../src/modules/oauth/revocation.cache.js';
import { liveClient } from './helpers/live.js';
import { connectCustomIntegration } from '../src/modules/integration/index.js';

// Two service processes behind one address (a load balancer's), on one database and one Redis: README "Several
// processes". Each runs the API and the workers, as `npm start` does.
jest.setTimeout(180_000);

const PUBLIC_URL = 'http://localhost:4000'; // the balancer's address: the issuer of tokens, the same in both
let db: TestDatabase;
let a: ServiceProcess;
let b: ServiceProcess;
let tenant: Tenant;
let shop: WebhookBusiness;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
  const env = {
    DATABASE_URL: db.url,
    PUBLIC_URL,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    RATE_LIMIT_AUTH_FAILURES_PER_CLIENT: '3',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  };
  a = startService({ ...env, PORT: String(await freePort()) });
  b = startService({ ...env, PORT: String(await freePort()) });
  await Promise.all([waitForReady(a), waitForReady(b)]);
  // The fixtures write straight into the shared database, as the admin CLI would.
  const fixture = { orm: db.orm, config: { publicUrl: PUBLIC_URL } } as unknown as TestServer;
  tenant = await createTenant(fixture);
  shop = await webhookBusiness(fixture);
});

afterAll(async () => {
  for (const service of [a, b]) if (service && service.child.exitCode === null) service.child.kill('SIGTERM');
  await Promise.all([a?.exited, b?.exited]);
  await receiver?.close();
  await db?.drop();
});

const gql = (service: ServiceProcess, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = tenant.headers) =>
  fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

const clientToken = (service: ServiceProcess, clientSecret: string) =>
  fetch(`${service.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grantType: 'client_credentials', clientId: tenant.clientId, clientSecret, scope: 'surveys:read' }),
  });

describe('two processes on one database and one Redis', () => {
  it('share rate limits: failures counted on one refuse the client on the other', async () => {
    const fresh = await clientToken(b, tenant.clientSecret);
    expect(fresh.status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await clientToken(a, `wrong-${i}`)).status).toBe(401);
    const refused = await clientToken(b, tenant.clientSecret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it(`refuse on one a token revoked on the other, within REVOCATION_CACHE_MS (${REVOCATION_CACHE_MS} ms)`, async () => {
    const other = await createTenant({ orm: db.orm, config: { publicUrl: PUBLIC_URL } } as unknown as TestServer);
    const query = `query($b: ID!) { business(id: $b) { id } }`;
    expect((await gql(b, query, { b: other.businessId }, other.headers)).status).toBe(200); // b has it cached as valid now
    const revoke = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: other.clientId, clientSecret: other.clientSecret, token: other.token }),
    });
    expect(revoke.status).toBe(200);
    await new Promise((r) => setTimeout(r, REVOCATION_CACHE_MS + 250));
    const after = await gql(b, query, { b: other.businessId }, other.headers);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('ingest one order once, whichever process each of its repeats reaches', async () => {
    const order = minimal({ externalOrderId: `dup-${randomBytes(4).toString('hex')}` });
    const send = (service: ServiceProcess) =>
      fetch(`${service.url}/webhooks/custom/${shop.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.secret}` },
        body: JSON.stringify(order),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 ? a : b)));
    expect(answers.map((x) => x.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((x) => x.body.data.id)).size).toBe(1);
    const rows = await db.orm.em
      .getConnection()
      .execute(`select count(*)::int as n from customer_order where business_id = ? and external_order_id = ?`, [shop.businessId, order.externalOrderId]);
    expect(rows[0].n).toBe(1);
  });

  it('deliver each event once, though both processes run workers', async () => {
    const hook = await gql(a, `mutation($b: ID!, $url: String!) { createWebhook(business: $b, input: {url: $url, events: ["metric.created"]}) { id } }`, {
      b: tenant.businessId,
      url: receiver.url,
    });
    expect(hook.body.errors).toBeUndefined();
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gql(i % 2 ? a : b, `mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }`, { b: tenant.businessId, n: `M${i}` }),
      ),
    );
    expect(created.every((c) => !c.body.errors)).toBe(true);
    const ids = new Set(created.map((c) => c.body.data.createMetric.id));
    const received = () => receiver.requests.filter((r) => ids.has(JSON.parse(r.body).data.object.id));
    for (let i = 0; i < 300 && received().length < 10; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received()).toHaveLength(10);
    // Every delivery is written as succeeded once, with one attempt; no event reached the receiver twice. (The worker
    // records the outcome after the receiver has answered: wait for the writes, not only the arrivals.)
    const deliveries = () =>
      db.orm.em.getConnection().execute(`select status, attempt_count from webhook_delivery where webhook_id = ?`, [hook.body.data.createWebhook.id]);
    let rows = await deliveries();
    for (let i = 0; i < 100 && rows.some((r: any) => r.status === 'pending'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await deliveries();
    }
    expect(rows).toHaveLength(10);
    expect(rows.every((r: any) => r.status === 'succeeded' && r.attempt_count === 1)).toBe(true);
    expect(new Set(received().map((r) => r.headers['webhook-id'])).size).toBe(10);
  });

  it("hear on one, through a subscription, a submission created through the other within 2 s; never another business's", async () => {
    const survey = (await gql(b, `mutation($b: ID!) { createSurvey(business: $b, input: {name: "Live"}) { id } }`, { b: tenant.businessId })).body.data
      .createSurvey.id;
    const submit = async () =>
      (
        await gql(b, `mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, {
          b: tenant.businessId,
          s: survey,
        })
      ).body.data.createSubmission.id as string;
    const live = liveClient(a.url, tenant.headers.authorization);
    try {
      const subscription = `subscription($b: ID!) { eventRecorded(business: $b, types: ["submission.created"]) { type data } }`;
      void live.listen(subscription, { b: tenant.businessId });
      // Nothing acknowledges a subscription: write until one is heard, then time one more.
      for (let i = 0; !live.received.length; i++) {
        if (i > 100) throw new Error('no event heard');
        await submit();
        await new Promise((r) => setTimeout(r, 100));
      }
      const before = live.received.length;
      const written = Date.now();
      const id = await submit();
      const heard = await live.until(before + 1, 2_000);
      expect(Date.now() - written).toBeLessThan(2_000);
      expect(heard.at(-1).eventRecorded).toMatchObject({ type: 'submission.created', data: { object: { id, object: 'submission' } } });
      const elsewhere = liveClient(a.url, tenant.headers.authorization);
      const other = (await elsewhere.listen(subscription, { b: shop.businessId })) as any[];
      await elsewhere.dispose();
      expect(other[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await live.dispose();
    }
  });

  it("forget on one what its memos kept once the other (or a command's process) changes it: a survey page's step, a webhook secret", async () => {
    const data = async (service: ServiceProcess, query: string, variables: Record<string, unknown>) => {
      const answer = await gql(service, query, { b: tenant.businessId, ...variables });
      expect(answer.body.errors).toBeUndefined();
      return answer.body.data;
    };
    const survey = (await data(a, `mutation($b: ID!) { createSurvey(business: $b, input: {name: "Kept", status: active}) { id } }`, {})).createSurvey.id;
    const addStep = `mutation($b: ID!, $s: ID!, $t: String!) { createSurveyStep(business: $b, survey: $s, input: {type: info, content: {title: $t}}) { id } }`;
    const step = (await data(a, addStep, { s: survey, t: 'Welcome in' })).createSurveyStep.id;
    await data(a, addStep, { s: survey, t: 'Thank you' });
    const page = async () => (await fetch(`${b.url}/survey/${tenant.businessId}/${survey}`)).text();
    /** b's page shows `present` and not `gone` within 2 s of the change committed on a. */
    const shownOnB = async (present: string, gone: string) => {
      let html = '';
      for (let i = 0; i < 40 && !((html = await page()).includes(present) && !html.includes(gone)); i++) await new Promise((r) => setTimeout(r, 50));
      expect({ present: html.includes(present), gone: html.includes(gone) }).toEqual({ present: true, gone: false });
    };
    await shownOnB('Welcome in', 'Welcome back');
    // Written by the ORM's flush on a.
    await data(
      a,
      `mutation($b: ID!, $s: ID!, $id: ID!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: {content: {title: "Welcome back"}}) { id } }`,
      {
        s: survey,
        id: step,
      },
    );
    await shownOnB('Welcome back', 'Welcome in');
    // Deleted by statements of its own on a (not a flush).
    await data(a, `mutation($b: ID!, $s: ID!, $id: ID!) { deleteSurveyStep(business: $b, survey: $s, id: $id) }`, { s: survey, id: step });
    await shownOnB('Thank you', 'Welcome back');

    // The secret kept by b's webhook door, rotated from this test's process (as the admin CLI would).
    const post = (secret: string) =>
      fetch(`${b.url}/webhooks/custom/${shop.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify(minimal()),
      }).then((res) => res.status);
    expect(await post(shop.secret)).toBe(200);
    const { secret } = await connectCustomIntegration(db.orm.em.fork(), shop.businessId);
    let refused = 0;
    for (let i = 0; i < 40 && (refused = await post(shop.secret)) !== 401; i++) await new Promise((r) => setTimeout(r, 50));
    expect(refused).toBe(401);
    expect(await post(secret)).toBe(200);
    shop.secret = secret;
  });
});
