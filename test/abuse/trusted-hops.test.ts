import { jest } from '@jest/globals';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { GuestAgent, guestSurvey, h1, type GuestSurveyFixture } from '../helpers/guest.js';
import { rows } from '../ingest/ingest-helpers.js';
import { ATTACKER, requestFrom } from '../helpers/from-address.js';
import { freePort } from '../helpers/ports.js';
import { startService, waitForReady, type ServiceProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// Issue 33, probe 7: the client's address is the socket's, or with TRUST_PROXY_HOPS=N the one the outermost of our N
// proxies saw (the N-th X-Forwarded-For entry from the right); what a client writes further left is ignored.
jest.setTimeout(90_000);

/** One guest (a cookie jar of its own) answering the survey's one step; the POST's page. */
async function answerOnce(server: TestServer, f: GuestSurveyFixture, headers: Record<string, string>) {
  const guest = new GuestAgent(server.url, headers);
  return (await guest.answer(await guest.get(f.path), { value: '7' })).post;
}

const stored = async (server: TestServer, f: GuestSurveyFixture) =>
  (await rows(server, 'select count(*)::int as n from submission where survey_id = ?', [f.survey]))[0].n as number;

describe('TRUST_PROXY_HOPS=0 (the default): the socket address, whatever X-Forwarded-For says', () => {
  let server: TestServer;
  useTestServer((s) => (server = s));

  it('15 guest answers from one address, each with another X-Forwarded-For: 10 stored, the 11th a 429 page', async () => {
    const f = await guestSurvey(server, { steps: [['nps', { type: 'nps' }]] });
    const posts = [];
    for (let i = 0; i < 15; i++) posts.push(await answerOnce(server, f, { 'x-forwarded-for': `198.51.100.${i}` }));
    expect(posts.map((p) => p.status)).toEqual([...Array(10).fill(303), ...Array(5).fill(429)]);
    const refused = posts[10];
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(h1(refused.html)).toBe('Too many responses');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await stored(server, f)).toBe(10);
  });
});

describe('TRUST_PROXY_HOPS=1 (behind one load balancer): the rightmost X-Forwarded-For entry', () => {
  let server: TestServer;
  useTestServer((s) => (server = s), { env: { TRUST_PROXY_HOPS: '1' } });

  it('counts the address the balancer saw, not the spoofed entries left of it', async () => {
    const f = await guestSurvey(server, { steps: [['nps', { type: 'nps' }]] });
    const posts = [];
    for (let i = 0; i < 15; i++) posts.push(await answerOnce(server, f, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` }));
    expect(posts.map((p) => p.status)).toEqual([...Array(10).fill(303), ...Array(5).fill(429)]);
    expect(h1(posts[14].html)).toBe('Too many responses');
    expect(await stored(server, f)).toBe(10);
    // Another client behind the balancer has its own count; without the header, the socket's address.
    expect((await answerOnce(server, f, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' })).status).toBe(303);
    expect((await answerOnce(server, f, {})).status).toBe(303);
    expect(await stored(server, f)).toBe(12);
  });
});

describe('per-address API quota (calls without a token)', () => {
  let server: TestServer;
  useTestServer((s) => (server = s), { env: { RATE_LIMIT_API_PER_SECOND: '2', RATE_LIMIT_API_BURST: '2' } });

  it('is not lifted by X-Forwarded-For', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        requestFrom(ATTACKER, `${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}` },
          body: JSON.stringify({ query: '{ health { status } }' }),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(8);
  });
});

describe('the service process', () => {
  let db: TestDatabase | undefined;
  let service: ServiceProcess | undefined;
  let refused: ServiceProcess | undefined;
  afterAll(async () => {
    for (const child of [service, refused]) if (child && child.child.exitCode === null) child.child.kill('SIGTERM');
    await Promise.all([service?.exited, refused?.exited]);
    await db?.drop();
  });

  it('stops with exit code 2 naming TRUST_PROXY_HOPS when it is not a hop count', async () => {
    // A database that is not there: were the variable ignored, the service would stop at once all the same (exit 1).
    const nowhere = `postgresql://postgres:pw@127.0.0.1:${await freePort()}/nowhere`;
    refused = startService({ PORT: String(await freePort()), TRUST_PROXY_HOPS: 'two', DATABASE_URL: nowhere });
    expect(await refused.exited).toBe(2);
    expect(refused.output()).toMatch(/TRUST_PROXY_HOPS must be an integer from 0 to \d+, got "two"/);
  });

  it('logs each request with the address it derived', async () => {
    db = await createTestDatabase();
    service = startService({ PORT: String(await freePort()), DATABASE_URL: db.url, TRUST_PROXY_HOPS: '1', WORKERS: '0' });
    await waitForReady(service);
    await requestFrom(ATTACKER, `${service.url}/healthz?probe=forwarded`, { headers: { 'x-forwarded-for': '10.0.0.1, 198.51.100.23' } });
    await requestFrom(ATTACKER, `${service.url}/healthz?probe=direct`);
    const until = Date.now() + 5_000;
    let lines: Array<Record<string, unknown>> = [];
    while (lines.length < 2 && Date.now() < until) {
      lines = service.logs().filter((l) => l.msg === 'request' && l.path === '/healthz' && l.address !== undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(lines.map((l) => l.address)).toEqual(['198.51.100.23', ATTACKER]);
  });
});
