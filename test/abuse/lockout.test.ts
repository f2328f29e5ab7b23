import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { minimal, rows, webhookBusiness, type WebhookBusiness } from '../ingest/ingest-helpers.js';
import { authorizeUrl, hiddenField, pkcePair } from '../oauth/oauth-helpers.js';
import { ATTACKER, RIGHTFUL, healthzDuring, postJsonFrom, requestFrom, type AddressedAnswer } from '../helpers/from-address.js';

// Issue 33, probes 4-6: a stranger holding only a public identifier (a client id, a business id, an owner's e-mail)
// sends wrong secrets from one address; the rightful party, with the right secret from its own address, must still
// get in, while the stranger's address is refused without its guesses being compared. Default failure limits; the
// order quota is small (1/s, bursts of 3) so that wrong secrets charged to it would show.
let server: TestServer;
useTestServer((s) => (server = s), { env: { RATE_LIMIT_WEBHOOK_PER_SECOND: '1', RATE_LIMIT_WEBHOOK_BURST: '3' } });

const tokenFrom = (address: string, tenant: Tenant, clientSecret: string) =>
  postJsonFrom(address, `${server.url}/oauth/token`, { grantType: 'client_credentials', clientId: tenant.clientId, clientSecret, scope: 'surveys:read' });

const orderFrom = (address: string, shop: WebhookBusiness, secret: string) =>
  postJsonFrom(address, `${server.url}/webhooks/custom/${shop.businessId}`, minimal(), { authorization: `Bearer ${secret}` });

/** The sign-in page as a browser at `address` walks it: GET the page (its CSRF cookie and field), POST the form. */
async function signInFrom(address: string, tenant: Tenant, password: string) {
  const url = authorizeUrl(server, {
    responseType: 'code',
    clientId: tenant.clientId,
    redirectUri: tenant.redirectUri,
    scope: 'surveys:read',
    codeChallenge: pkcePair().challenge,
    codeChallengeMethod: 'S256',
  });
  const page = await requestFrom(address, url);
  const cookie = cookiesOf(page).join('; ');
  const form = new URLSearchParams({ csrf: hiddenField(page.text, 'csrf'), action: 'signin', email: tenant.email, password }).toString();
  const posted = await requestFrom(address, url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: form });
  return { ...posted, signedIn: cookiesOf(posted).some((c) => c.startsWith('oauth_session=') && c.length > 'oauth_session='.length) };
}

const cookiesOf = (answer: AddressedAnswer) => (answer.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]);

/** `send` run `n` times one after the other; the statuses in order. */
async function repeat(n: number, send: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await send(i)).status);
  return statuses;
}

/** How long `send` took, with its answer. */
async function timed<T>(send: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await send();
  return { answer, ms: performance.now() - started };
}

/** Guesses on one identifier held in delays at once (failure-limit.ts MAX_HELD_PER_IDENTIFIER). */
const MAX_HELD_PER_IDENTIFIER = 10;

const statusesOf = (n: number, status: number) => Array.from({ length: n }, () => status);

/**
 * `n` wrong guesses sent one after the other while /healthz is probed: the first `compared` are compared (401), the
 * rest refused (429), and /healthz stays quick throughout.
 */
async function expectThrottled(n: number, compared: number, guess: (i: number) => Promise<{ status: number }>): Promise<void> {
  const { result: guesses, p95 } = await healthzDuring(server.url, () => repeat(n, guess));
  expect(guesses).toEqual([...statusesOf(compared, 401), ...statusesOf(n - compared, 429)]);
  expect(p95).toBeLessThan(200);
}

describe('OAuth client authentication (/oauth/token, /oauth/revoke, /oauth/introspect)', () => {
  it('30 wrong client secrets from one address: that address is throttled, the partner with the right secret from its own address gets its token', async () => {
    const partner = await createTenant(server);
    // 10 guesses compared (401), then the attacker's address is refused before any secret is compared.
    await expectThrottled(30, 10, (i) => tokenFrom(ATTACKER, partner, `cs_guess_${i}`));

    const token = await tokenFrom(RIGHTFUL, partner, partner.clientSecret);
    expect(token.status).toBe(200);
    expect(token.body.accessToken).toEqual(expect.any(String));
    const ask = (path: string) =>
      postJsonFrom(RIGHTFUL, `${server.url}${path}`, { clientId: partner.clientId, clientSecret: partner.clientSecret, token: token.body.accessToken });
    expect((await ask('/oauth/introspect')).body).toMatchObject({ active: true });
    expect((await ask('/oauth/revoke')).status).toBe(200);

    // The attacker's address stays refused, the right secret included: a guess is never confirmed there.
    const fromAttacker = await tokenFrom(ATTACKER, partner, partner.clientSecret);
    expect(fromAttacker.status).toBe(429);
    expect(fromAttacker.body.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(fromAttacker.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an attacker rotating addresses is slowed on the client id by growing delays, while the partner is neither slowed nor refused', async () => {
    const partner = await createTenant(server);
    const rotating = ['127.0.0.10', '127.0.0.11'];
    const { result, p95 } = await healthzDuring(server.url, async () => {
      // The first address spends what one address may (10), quickly.
      const first = await repeat(10, (i) => tokenFrom(rotating[0], partner, `cs_first_${i}`));
      // From the next one, each guess after its first waits longer than the one before.
      const next = [];
      for (let i = 0; i < 4; i++) next.push(await timed(() => tokenFrom(rotating[1], partner, `cs_next_${i}`)));
      const rightful = await timed(() => tokenFrom(RIGHTFUL, partner, partner.clientSecret));
      return { first, next, rightful };
    });
    expect(result.first).toEqual(statusesOf(10, 401));
    expect(result.next.map((n) => n.answer.status)).toEqual(statusesOf(4, 401));
    const [, second, third, fourth] = result.next.map((n) => n.ms);
    expect(second).toBeGreaterThanOrEqual(450);
    expect(third).toBeGreaterThan(second);
    expect(fourth).toBeGreaterThan(third);
    expect(fourth).toBeGreaterThanOrEqual(1_900);
    // The partner, from an address that has not failed, is answered at once: not held behind the attacker's delays.
    expect(result.rightful.answer.status).toBe(200);
    expect(result.rightful.ms).toBeLessThan(fourth / 2);
    // Delays are timers: the service answers everyone else meanwhile.
    expect(p95).toBeLessThan(200);
  });

  it('holds few guesses at once: concurrent guesses from an address that has failed are refused at once past the bound', async () => {
    const partner = await createTenant(server);
    await repeat(10, (i) => tokenFrom('127.0.0.20', partner, `cs_first_${i}`));
    // First guesses from more addresses (never delayed): 14 failures in all, so the next guess from one of them
    // waits 4 s, long enough for every one of the burst below to arrive while the first ones are held.
    for (const address of ['127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24']) await tokenFrom(address, partner, 'cs_first');
    let answered = 0;
    const guesses = Array.from({ length: 25 }, (_, i) => timed(() => tokenFrom('127.0.0.21', partner, `cs_many_${i}`)).finally(() => answered++));
    // Those past the bound are answered at once; /healthz is then watched while the others wait out their delay.
    for (const until = Date.now() + 10_000; answered < 25 - MAX_HELD_PER_IDENTIFIER && Date.now() < until; ) await sleep(5);
    const { result, p95 } = await healthzDuring(server.url, () => Promise.all(guesses));
    const refusedAtOnce = result.filter((r) => r.answer.status === 429);
    const held = result.filter((r) => r.answer.status === 401);
    expect(held).toHaveLength(MAX_HELD_PER_IDENTIFIER);
    expect(refusedAtOnce).toHaveLength(25 - MAX_HELD_PER_IDENTIFIER);
    expect(Math.max(...refusedAtOnce.map((r) => r.ms))).toBeLessThan(Math.min(...held.map((r) => r.ms)));
    expect(p95).toBeLessThan(200);
    expect((await tokenFrom(RIGHTFUL, partner, partner.clientSecret)).status).toBe(200);
  });
});

describe('custom order webhook secret (POST /webhooks/custom/{business})', () => {
  it('30 wrong bearer secrets from one address: that address is throttled, the ordering system with the right secret from its own address stores its orders', async () => {
    const shop = await webhookBusiness(server);
    await expectThrottled(30, 10, (i) => orderFrom(ATTACKER, shop, `whsec_guess_${i}`));

    // Wrong secrets are not charged to the business's order quota (1/s, bursts of 3): three orders at once pass.
    const orders = await Promise.all([0, 1, 2].map(() => orderFrom(RIGHTFUL, shop, shop.secret)));
    expect(orders.map((o) => o.status)).toEqual([200, 200, 200]);
    const stored = await rows(server, 'select count(*)::int as n from customer_order where business_id = ?', [shop.businessId]);
    expect(stored[0].n).toBe(3);

    const fromAttacker = await orderFrom(ATTACKER, shop, shop.secret);
    expect(fromAttacker.status).toBe(429);
    expect(fromAttacker.body.error).toMatchObject({ status: 429, code: 'rate_limited', message: expect.stringMatching(/failed authentications/) });
  });
});

describe('sign-in page (/oauth/authorize)', () => {
  it("12 wrong passwords for an owner's e-mail from one address: that address is throttled, the owner with the right password from another address signs in", async () => {
    const owner = await createTenant(server);
    await expectThrottled(12, 5, (i) => signInFrom(ATTACKER, owner, `wrong password ${i}`));

    const signedIn = await signInFrom(RIGHTFUL, owner, owner.password);
    expect(signedIn.status).toBe(303);
    expect(signedIn.signedIn).toBe(true);

    const fromAttacker = await signInFrom(ATTACKER, owner, owner.password);
    expect(fromAttacker.status).toBe(429);
    expect(fromAttacker.signedIn).toBe(false);
    expect(fromAttacker.text).toContain('Too many failed attempts');
  });

  it('an attacker rotating addresses meets growing delays on the e-mail, never a lock: the owner still signs in at once', async () => {
    const owner = await createTenant(server);
    const { result, p95 } = await healthzDuring(server.url, async () => {
      const first = await repeat(5, (i) => signInFrom('127.0.0.30', owner, `wrong ${i}`));
      const next = [];
      for (let i = 0; i < 3; i++) next.push(await timed(() => signInFrom('127.0.0.31', owner, `wrong again ${i}`)));
      const rightful = await timed(() => signInFrom(RIGHTFUL, owner, owner.password));
      return { first, next, rightful };
    });
    expect(result.first).toEqual(statusesOf(5, 401));
    expect(result.next.map((n) => n.answer.status)).toEqual(statusesOf(3, 401));
    const [, second, third] = result.next.map((n) => n.ms);
    expect(second).toBeGreaterThanOrEqual(450);
    expect(third).toBeGreaterThanOrEqual(950);
    expect(result.rightful.answer.status).toBe(303);
    expect(result.rightful.answer.signedIn).toBe(true);
    expect(result.rightful.ms).toBeLessThan(third);
    expect(p95).toBeLessThan(200);
  });
});

describe('in Redis (REDIS_URL), shared by every process', () => {
  const env = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:` };
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ env });
    b = await startTestServer({ env }); // its own database, as a second process would have the same one: only Redis is shared
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it("refuses the attacker's address on every process, and the rightful party on none", async () => {
    const shop = await webhookBusiness(a);
    const post = (server: TestServer, address: string, secret: string) =>
      postJsonFrom(address, `${server.url}/webhooks/custom/${shop.businessId}`, minimal(), { authorization: `Bearer ${secret}` });
    expect(await repeat(12, (i) => post(a, ATTACKER, `whsec_guess_${i}`))).toEqual([...statusesOf(10, 401), ...statusesOf(2, 429)]);
    // The same business id on the other process (its database does not know it: only the counters are compared).
    expect((await post(b, ATTACKER, shop.secret)).status).toBe(429);
    expect((await post(a, RIGHTFUL, shop.secret)).status).toBe(200);
  });
});
