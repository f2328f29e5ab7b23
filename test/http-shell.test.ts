import { API_LIMIT_ON, useTestServer, type TestServer } from './helpers/server.js';
import { createTenant } from './helpers/auth.js';

let server: TestServer;
useTestServer((s) => (server = s), { env: API_LIMIT_ON });

/** `res` is an error answer: `status`, and the error body of that status and `code`, without stack frames. Answers the body. */
const expectErrorAnswer = async (res: Response, status: number, code: string) => {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body).toEqual({
    error: expect.objectContaining({ status, code, message: expect.any(String), requestId: expect.stringMatching(/^req_/) }),
  });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/); // no stack frames
  return body;
};

/** A POST of `body` to /graphql, sent as `contentType`. */
const postGraphql = (contentType: string, body: string) => fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('health and readiness', () => {
  it('GET /healthz answers 200 while the process is up', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers', async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', database: 'ok' });
  });
});

describe('request ids', () => {
  it('puts a generated X-Request-Id on every response, errors included', async () => {
    const ok = await fetch(`${server.url}/healthz`);
    const missing = await fetch(`${server.url}/missing`);
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(missing.headers.get('x-request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(ok.headers.get('x-request-id')).not.toBe(missing.headers.get('x-request-id'));
    expect((await missing.json()).error.requestId).toBe(missing.headers.get('x-request-id'));
  });

  it("keeps a caller's plain request id and replaces an unsafe one", async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'upstream-123' } });
    expect(kept.headers.get('x-request-id')).toBe('upstream-123');
    const replaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id\twith<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('error bodies', () => {
  it('404 for an unknown path', async () => {
    const res = await fetch(`${server.url}/v2/nothing-here`);
    const body = await expectErrorAnswer(res, 404, 'not_found');
    expect(body.error.message).toContain('/v2/nothing-here');
  });

  it('405 with Allow for a known path and another method', async () => {
    const res = await fetch(`${server.url}/healthz`, { method: 'DELETE' });
    await expectErrorAnswer(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('413 for a JSON body over 1 MiB', async () => {
    const big = JSON.stringify({ query: '{ health { status } }', pad: 'x'.repeat(1024 * 1024) });
    const res = await postGraphql('application/json', big);
    await expectErrorAnswer(res, 413, 'payload_too_large');
  });

  it('accepts a body just under 1 MiB', async () => {
    const body = JSON.stringify({ query: '{ health { status } }', variables: { pad: 'x'.repeat(1024 * 1024 - 100) } });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    const res = await postGraphql('application/json', body);
    expect(res.status).toBe(200);
  });

  it('415 for a non-JSON body', async () => {
    const res = await postGraphql('text/plain', 'hello');
    const body = await expectErrorAnswer(res, 415, 'unsupported_media_type');
    expect(body.error.message).toContain('text/plain');
  });

  it('415 for a form body where JSON is required', async () => {
    const res = await postGraphql('application/x-www-form-urlencoded', 'query=x');
    expect(res.status).toBe(415);
  });

  it('400 for malformed JSON', async () => {
    const res = await postGraphql('application/json', '{"query": ');
    const body = await expectErrorAnswer(res, 400, 'bad_request');
    expect(body.error.message).toMatch(/not valid JSON/);
  });

  it('a thrown error becomes a 500 with a generic message: no stack, no SQL', async () => {
    const tenant = await createTenant(server);
    // Break the database under the running app: the query fails inside the server.
    await server.orm.em.getConnection().execute('alter table business rename to business_gone');
    try {
      const { status, body } = await server.graphql(`{ business(id: "${tenant.businessId}") { id } }`, {}, tenant.headers);
      expect(status).toBe(200); // GraphQL reports resolver errors in the body
      expect(body.errors[0]).toEqual({
        message: 'Internal server error',
        path: ['business'],
        locations: expect.any(Array),
        extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 },
      });
      expect(JSON.stringify(body)).not.toMatch(/business_gone|select|relation/i);
    } finally {
      await server.orm.em.getConnection().execute('alter table business_gone rename to business');
    }
  });
});

describe('GraphQL endpoint', () => {
  it('answers the health query', async () => {
    const { status, body } = await server.graphql('{ health { status database version } }');
    expect(status).toBe(200);
    expect(body).toEqual({
      data: { health: { status: 'ok', database: true, version: expect.any(String) } },
      // Charged against the caller's API quota (by address without a token): base cost 10 + health + 3 fields.
      extensions: { cost: { requested: 14, weight: 1, remaining: expect.any(Number) } },
    });
  });

  it('serves Apollo Sandbox to a browser', async () => {
    const res = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/embeddable-sandbox|Apollo Sandbox/i);
  });

  it('reads a business by id with a token of that business, and refuses others', async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Uno' });
    const query = 'query($id: ID!) { business(id: $id) { id object name createdAt } }';
    const found = await server.graphql(query, { id: tenant.businessId }, tenant.headers);
    expect(found.body.data.business).toEqual({ id: tenant.businessId, object: 'business', name: 'Cafe Uno', createdAt: expect.any(Number) });

    const anonymous = await server.graphql(query, { id: tenant.businessId });
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const other = await createTenant(server);
    const foreign = await server.graphql(query, { id: other.businessId }, tenant.headers);
    expect(foreign.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(foreign.body.data).toBeNull();
  });
});

describe('CORS for browser dashboards', () => {
  const origin = 'https://dashboard.example.com';

  it('answers a preflight for /graphql and the REST paths', async () => {
    for (const path of ['/graphql', '/v2/businesses/bus_01ARZ3NDEKTSV4RRFFQ69G5FAV/surveys']) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/PATCH/);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('lets the page read answers, errors included, and the request id', async () => {
    const ok = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ health { status } }' }),
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    const refused = await fetch(`${server.url}/v2/businesses/bus_01ARZ3NDEKTSV4RRFFQ69G5FAV/surveys`, { headers: { origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('is not offered on the sign-in pages or the server-to-server order webhook', async () => {
    for (const path of ['/oauth/authorize', '/webhooks/custom/bus_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
