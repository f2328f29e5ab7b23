import net from 'node:net';
import pg from 'pg';
import { issueToken, TEST_REDIRECT_URI, useTenantServer } from './helpers/auth.js';
import { newId } from '../src/shared/id.js';
import { errorAnswer } from '../src/shared/error-answer.js';

/**
 * A request that cannot get a database connection in time (every connection busy, or none connecting) is told so:
 * 503 with Retry-After and the error body of its door, never a 500 (issue 47). The server's pool here is a single
 * connection that waits 500 ms for it; the test holds that connection in a transaction of its own.
 */
const WAIT_MS = 500;
const fx = useTenantServer({ server: { orm: { pool: { min: 0, max: 1 }, driverOptions: { connectionTimeoutMillis: WAIT_MS } } } });

/** `work` while the server's only pooled connection is held by an open transaction. */
function withThePoolHeld<T>(work: () => Promise<T>): Promise<T> {
  return fx.server.orm.em.fork().transactional(async (tx) => {
    await tx.execute('select 1');
    return work();
  });
}

const tokenRequest = () =>
  fetch(`${fx.server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grantType: 'client_credentials', clientId: fx.tenant.clientId, clientSecret: fx.tenant.clientSecret }),
  });
async function businessQuery(headers = fx.tenant.headers) {
  const res = await fetch(`${fx.server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: 'query($id: ID!) { business(id: $id) { id name } }', variables: { id: fx.tenant.businessId } }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}
const unavailableBody = {
  error: { status: 503, code: 'unavailable', message: expect.stringMatching(/busy.*retry after 2 s/i), requestId: expect.stringMatching(/^req_/) },
};

describe('a request that gets no database connection in time', () => {
  it('is a 503 with Retry-After at every door, and the same request succeeds once a connection is free', async () => {
    const answers = await withThePoolHeld(async () => {
      const token = await tokenRequest();
      // A token never seen by this server: checking it needs the database (the keys, its standing).
      const graphql = await businessQuery();
      const rest = await fetch(`${fx.server.url}/v2/businesses/${fx.tenant.businessId}/surveys`, { headers: fx.tenant.headers });
      const guestPage = await fetch(`${fx.server.url}/survey/${fx.tenant.businessId}/${newId('survey')}`);
      // An alert recipient's confirmation page (a token the database must be asked about).
      const alertPage = await fetch(`${fx.server.url}/alerts/${'a'.repeat(43)}`);
      // A partner's sign-in link: the page reads the client first.
      const signInPage = await fetch(
        `${fx.server.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: fx.tenant.clientId, redirect_uri: TEST_REDIRECT_URI, scope: 'surveys:read' })}`,
      );
      return {
        token: { status: token.status, retryAfter: token.headers.get('retry-after'), body: await token.json() },
        graphql,
        rest: { status: rest.status, retryAfter: rest.headers.get('retry-after'), body: await rest.json() },
        guestPage: {
          status: guestPage.status,
          retryAfter: guestPage.headers.get('retry-after'),
          type: guestPage.headers.get('content-type'),
          html: await guestPage.text(),
        },
        signInPage: {
          status: signInPage.status,
          retryAfter: signInPage.headers.get('retry-after'),
          type: signInPage.headers.get('content-type'),
          html: await signInPage.text(),
        },
        alertPage: {
          status: alertPage.status,
          retryAfter: alertPage.headers.get('retry-after'),
          type: alertPage.headers.get('content-type'),
          html: await alertPage.text(),
        },
      };
    });
    expect(answers.token).toEqual({ status: 503, retryAfter: '2', body: unavailableBody });
    // Refused before the operation ran: a request error, without `data`.
    expect(answers.graphql).toEqual({
      status: 503,
      retryAfter: '2',
      body: { errors: [expect.objectContaining({ message: expect.stringMatching(/busy/), extensions: { code: 'SERVICE_UNAVAILABLE', status: 503 } })] },
    });
    expect(answers.rest).toEqual({ status: 503, retryAfter: '2', body: unavailableBody });
    expect(answers.guestPage).toEqual({
      status: 503,
      retryAfter: '2',
      type: expect.stringMatching(/^text\/html/),
      html: expect.stringContaining('Please try again in a moment'),
    });
    expect(answers.signInPage).toEqual({
      status: 503,
      retryAfter: '2',
      type: expect.stringMatching(/^text\/html/),
      html: expect.stringContaining('Please try again in a moment'),
    });
    expect(answers.alertPage).toEqual({
      status: 503,
      retryAfter: '2',
      type: expect.stringMatching(/^text\/html/),
      html: expect.stringContaining('Please try again in a moment'),
    });

    expect((await tokenRequest()).status).toBe(200);
    expect(await businessQuery()).toEqual({ status: 200, retryAfter: null, body: { data: { business: { id: fx.tenant.businessId, name: 'Test Cafe' } } } });
  });

  it('is a 503 with Retry-After from GraphQL when a resolver waited for it (the token already known)', async () => {
    // A token of its own, checked just now: this server remembers its standing for a moment (REVOCATION_CACHE_MS).
    const { accessToken } = await issueToken(fx.server, {
      credential: fx.tenant.credentialId,
      clientId: fx.tenant.clientId,
      business: fx.tenant.businessId,
      user: fx.tenant.userId,
      scopes: ['business:read'],
      withRefreshToken: false,
    });
    const headers = { authorization: `Bearer ${accessToken}` };
    expect((await businessQuery(headers)).status).toBe(200);
    const answer = await withThePoolHeld(() => businessQuery(headers));
    expect(answer).toEqual({
      status: 503,
      retryAfter: '2',
      body: { data: null, errors: [expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE', status: 503 } })] },
    });
  });
});

describe("pg-pool's failures to connect in time", () => {
  it('a new connection that never finishes connecting is a 503 too', async () => {
    // A server that takes the connection and never answers it: PostgreSQL out of reach.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const pool = new pg.Pool({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, connectionTimeoutMillis: 200 });
    try {
      const failure = await pool.query('select 1').then(
        () => undefined,
        (err: unknown) => err,
      );
      const answer = errorAnswer(failure, { requestId: 'req_x', onFault: () => undefined });
      expect(answer).toEqual({ status: 503, headers: { 'Retry-After': '2' }, body: { error: { ...unavailableBody.error, requestId: 'req_x' } } });
    } finally {
      await pool.end();
      silent.close();
    }
  });
});
