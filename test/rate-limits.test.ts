import { randomBytes } from 'node:crypto';
import { startTestServer, useTestServer, type TestServer } from './helpers/server.js';
import { createTenant, issueToken, tokenOfNewCredential, useTenantServer } from './helpers/auth.js';
import { PORTAL_CLIENT_ID, PORTAL_CREDENTIAL_ID } from '../src/modules/oauth/credential.entity.js';
import { createUser } from '../src/modules/user/user.service.js';
import { Membership } from '../src/modules/user/membership.entity.js';
import { minimal, webhookBusiness, type WebhookBusiness } from './ingest/ingest-helpers.js';

// Small quotas so a handful of requests reach them. The per-second quotas are fixed windows: a test sends more than
// the quota at once and expects at least one refusal, whichever second the requests fall in.
const LIMITS = {
  RATE_LIMIT_API_PER_SECOND: '2',
  RATE_LIMIT_API_BURST: '4',
  RATE_LIMIT_WEBHOOK_PER_SECOND: '1',
  RATE_LIMIT_WEBHOOK_BURST: '3',
  RATE_LIMIT_AUTH_FAILURES_PER_CLIENT: '3',
  RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: '6',
};

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

const graphql = (server: TestServer, query: string, headers: Record<string, string> = {}) =>
  call(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

/** Requests at once until one is refused (at most `n`); the answers in order. */
async function burst<T extends { status: number }>(n: number, send: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

describe('rate limits (memory)', () => {
  const fx = useTenantServer({ server: { env: LIMITS } });

  it('GraphQL: every answer carries RateLimit-Policy and RateLimit, the result its cost; past the quota a 429 with Retry-After', async () => {
    const first = await graphql(fx.server, `query Health { health { status } }`, fx.tenant.headers);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"api";q=2;w=1, "api-burst";q=2;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"api";r=\d+;t=\d+$/);
    // One root field: its base cost (it reaches the database), itself and its one selected field; weight 1.
    expect(first.body.extensions.cost).toEqual({ requested: 12, weight: 1, remaining: expect.any(Number) });

    const answers = await burst(12, () => graphql(fx.server, `{ health { status } }`, fx.tenant.headers));
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused).toBeDefined();
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"api(-burst)?";r=0;t=\d+$/);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refused.body.errors[0].message).toMatch(/Too many API requests/);
    expect(refused.body.data).toBeUndefined();
  });

  it('REST shares the quota of the same credential and business, and answers a refusal with the error body', async () => {
    const answers = await burst(12, () => call(`${fx.server.url}/v2/businesses/${fx.tenant.businessId}/surveys`, { headers: fx.tenant.headers }));
    const ok = answers.find((a) => a.status === 200);
    if (ok) expect(ok.headers.get('ratelimit-policy')).toContain('"api";q=2;w=1');
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused).toBeDefined();
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.error).toMatchObject({ status: 429, code: 'rate_limited', requestId: expect.stringMatching(/^req_/) });
  });

  it('keeps each credential to its own quota, and callers without a token to their address', async () => {
    const other = await createTenant(fx.server);
    const answer = await graphql(fx.server, `{ health { status } }`, other.headers);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit')).toBeTruthy();
  });

  it("the portal: each member has a quota of their own, apart from the other members' and the partners'; the answer names the team's too", async () => {
    const em = fx.server.orm.em.fork();
    const portalHeaders = async (user: string) => {
      const issued = await issueToken(fx.server, {
        credential: PORTAL_CREDENTIAL_ID,
        clientId: PORTAL_CLIENT_ID,
        business: fx.tenant.businessId,
        user,
        scopes: ['surveys:read'],
        withRefreshToken: false,
      });
      return { authorization: `Bearer ${issued.accessToken}` };
    };
    const other = await createUser(em, { email: `member-${randomBytes(4).toString('hex')}@example.com`, password: 'a long enough password', name: 'Other' });
    em.create(Membership, { user: other.id, business: fx.tenant.businessId, role: 'manager' });
    await em.flush();
    const [busy, calm] = await Promise.all([portalHeaders(fx.tenant.userId), portalHeaders(other.id)]);

    const spent = await burst(12, () => graphql(fx.server, `{ health { status } }`, busy));
    const refused = spent.find((a) => a.status === 429)!;
    expect(refused.body.errors[0].message).toMatch(/^Too many requests from you in a short time/);
    // The other member and the partner's credential are not refused for it.
    expect((await graphql(fx.server, `{ health { status } }`, calm)).status).toBe(200);
    // A partner's credential of the same business (a fresh one: the tests above spent the tenant's).
    const partner = await tokenOfNewCredential(fx.server, fx.tenant, 'Partner', ['surveys:read']);
    expect((await graphql(fx.server, `{ health { status } }`, { authorization: `Bearer ${partner}` })).status).toBe(200);
    // The answer names both quotas it was charged against.
    expect((await graphql(fx.server, `{ health { status } }`, calm)).headers.get('ratelimit-policy')).toBe(
      '"api";q=2;w=1, "api-burst";q=2;w=60, "portal-business";q=10;w=1, "portal-business-burst";q=10;w=60',
    );
  });

  it('weighs an operation by its estimated cost: one unit per 100', async () => {
    const fresh = await createTenant(fx.server);
    const query = `{ surveys(business: "${fresh.businessId}", pageSize: 100) { data { id name description status } } }`;
    const { status, body } = await graphql(fx.server, query, fresh.headers);
    expect(status).toBe(200);
    // 10 (root) + 1 (surveys) + 1 (data) + 100 x 4 fields = 412: 5 units, more than this quota's 2 a second, so
    // counted as the whole quota.
    expect(body.extensions.cost).toMatchObject({ requested: 412, weight: 5 });
  });

  it('custom order webhook: orders per business; a refusal is 429 with the error body', async () => {
    const shop = await webhookBusiness(fx.server);
    const send = () =>
      call(`${fx.server.url}/webhooks/custom/${shop.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.secret}` },
        body: JSON.stringify(minimal()),
      });
    const answers = await burst(10, send);
    const ok = answers.find((a) => a.status === 200)!;
    expect(ok.headers.get('ratelimit-policy')).toContain('"webhook";q=1;w=1, "webhook-burst";q=2;w=60');
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused).toBeDefined();
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.body.error.message).toMatch(/Too many orders for this business/);
  });
});

describe('failed authentications', () => {
  let server: TestServer;
  // The OAuth and webhook failure counters are per address too: each test file's server starts fresh.
  useTestServer((s) => (server = s), { env: LIMITS });

  const token = (body: Record<string, string>) =>
    call(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials', ...body }),
    });

  it('OAuth: after 3 wrong secrets for a client id from one address, even the right one is refused (429) there until the window ends', async () => {
    const tenant = await createTenant(server);
    for (let i = 0; i < 3; i++) {
      const wrong = await token({ clientId: tenant.clientId, clientSecret: 'guess-' + i });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('ratelimit-policy')).toBe('"auth-client";q=3;w=900, "auth-address";q=6;w=900');
    }
    const right = await token({ clientId: tenant.clientId, clientSecret: tenant.clientSecret });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(right.body.error).toMatchObject({ status: 429, code: 'rate_limited' });
    // /oauth/revoke and /oauth/introspect authenticate the same client the same way.
    const revoke = await call(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: tenant.clientId, clientSecret: tenant.clientSecret, token: 'x' }),
    });
    expect(revoke.status).toBe(429);
  });

  it('OAuth: failures from one address across client ids stop at 6', async () => {
    // 3 failures so far from this address (the test above); 3 more with unknown client ids reach 6.
    for (let i = 0; i < 3; i++) expect((await token({ clientId: `unknown-${randomBytes(4).toString('hex')}`, clientSecret: 'x' })).status).toBe(401);
    const tenant = await createTenant(server);
    const refused = await token({ clientId: tenant.clientId, clientSecret: tenant.clientSecret });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"auth-address";r=0;t=\d+$/);
  });
});

describe('failed webhook secrets', () => {
  let shop: WebhookBusiness;
  useTestServer(
    async (s) => {
      shop = await webhookBusiness(s);
    },
    { env: LIMITS },
  );

  it('after 3 wrong secrets for a business from one address, its webhook answers 429 there before comparing secrets', async () => {
    for (let i = 0; i < 3; i++) expect((await shop.post(minimal(), { secret: `whsec_wrong${i}` })).status).toBe(401);
    const right = await shop.post(minimal());
    expect(right.status).toBe(429);
    expect(right.body.error).toMatchObject({ status: 429, code: 'rate_limited' });
  });
});

describe('rate limits in Redis (REDIS_URL): shared by every server', () => {
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { ...LIMITS, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix };
    a = await startTestServer({ env });
    // The second server runs on its own database, as a second process would on the same one: only Redis is shared.
    b = await startTestServer({ env });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('counts failures made on one server against the other', async () => {
    const shop = await webhookBusiness(a);
    for (let i = 0; i < 3; i++) expect((await shop.post(minimal(), { secret: `whsec_wrong${i}` })).status).toBe(401);
    // The same business id on the other server: refused there too, before any secret is compared.
    const there = await call(`${b.url}/webhooks/custom/${shop.businessId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.secret}` },
      body: JSON.stringify(minimal()),
    });
    expect(there.status).toBe(429);
  });

  it('charges the API quota in Redis', async () => {
    const tenant = await createTenant(a);
    const answers = await burst(12, () => graphql(a, `{ health { status } }`, tenant.headers));
    expect(answers.some((x) => x.status === 429)).toBe(true);
    expect(answers.find((x) => x.status === 200)!.headers.get('ratelimit-policy')).toContain('"api";q=2;w=1');
  });
});
