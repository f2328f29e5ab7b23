import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TEST_PASSWORD, TEST_REDIRECT_URI } from '../helpers/auth.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createBusiness } from '../../src/modules/member/member.service.js';
import { createCredential } from '../../src/modules/oauth/credential.service.js';

/**
 * A deploy followed by partners' retries (issue 47): a burst of client_credentials token requests at a server that has
 * just become ready, nothing of it warmed (its signing key not loaded, no token ever checked or issued). Each request
 * holds at most one pooled connection at a time, and never waits for another while holding one: on a pool of a single
 * connection the whole burst is answered, one request after another. Before, a request loaded the signing key on a
 * second connection from inside its transaction: with every connection held that way, the burst waited out the pool's
 * 5 s and was answered 500.
 */
jest.setTimeout(60_000);

const BURST = 60;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A credential of a new business, written without issuing any token: nothing of the server's is used before the burst. */
async function client(on: TestServer) {
  const em = on.orm.em.fork();
  const user = await createUser(em, { email: `owner-${randomBytes(6).toString('hex')}@example.com`, password: TEST_PASSWORD, name: 'Owner' });
  const { business } = await createBusiness(em, { name: 'Burst Cafe', owner: user.id });
  const { credential, clientSecret } = await createCredential(em, {
    business: business.id,
    name: 'Partner',
    validRedirectUris: [TEST_REDIRECT_URI],
    createdBy: user.id,
  });
  return { clientId: credential.clientId, clientSecret };
}

/** How many answers had each status. */
const tally = (answers: Array<{ status: number }>) => answers.reduce<Record<number, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});

/** BURST token requests at once, as a partner's retries after a deploy send them; each answer's status, Retry-After and body. */
async function burst(on: TestServer, credentials: { clientId: string; clientSecret: string }) {
  return Promise.all(
    Array.from({ length: BURST }, async () => {
      const res = await fetch(`${on.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials', ...credentials }),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> };
    }),
  );
}

describe(`a burst of ${BURST} client_credentials token requests at a server that has just become ready`, () => {
  it('is answered in full on a pool of one connection: no request needs a second connection to finish', async () => {
    server = await startTestServer({ orm: { pool: { min: 0, max: 1 } } });
    const answers = await burst(server, await client(server));
    expect(tally(answers)).toEqual({ 200: BURST });
    expect(answers.map((a) => a.body)).toEqual(
      Array(BURST).fill(expect.objectContaining({ object: 'token', tokenType: 'Bearer', accessToken: expect.any(String) })),
    );
    expect(new Set(answers.map((a) => a.body.accessToken)).size).toBe(BURST);
  });

  it('is answered 200 throughout on the default pool, never 500', async () => {
    server = await startTestServer();
    const answers = await burst(server, await client(server));
    // What a client may be told at worst is a 503 with Retry-After; here, with connections enough, every request gets its token.
    for (const answer of answers)
      if (answer.status !== 200) expect(answer).toEqual(expect.objectContaining({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) }));
    expect(tally(answers)).toEqual({ 200: BURST });
  });
});
