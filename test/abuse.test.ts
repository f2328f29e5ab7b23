import { API_LIMIT_ON } from './helpers/server.js';
import { useTenantServer } from './helpers/auth.js';
import { webhookBusiness, type WebhookBusiness } from './ingest/ingest-helpers.js';
import { inspectJson, MAX_JSON_DEPTH } from '../src/shared/text.js';

// Probes from outside (issue 14): what a hostile client can send, at every door, answered as the client's mistake.
let shop: WebhookBusiness;
const fx = useTenantServer({ server: { env: API_LIMIT_ON } }, async ({ server }) => {
  shop = await webhookBusiness(server);
});

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const nestedObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${fx.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: await res.json() };
}

describe('JSON nested deeper than 64 levels', () => {
  it('walks a value nested 100,000 deep without recursion, and names where it went too deep', () => {
    expect(inspectJson(JSON.parse(nested(100_000)))).toEqual({ kind: 'too_deep', path: '[0]'.repeat(MAX_JSON_DEPTH) });
    expect(inspectJson(JSON.parse(nested(MAX_JSON_DEPTH)))).toBeUndefined();
    expect(inspectJson(JSON.parse(nested(MAX_JSON_DEPTH + 1)))?.kind).toBe('too_deep');
    expect(inspectJson({ a: [{ b: 'ok' }, { c: 'nul\u0000' }] })).toEqual({ kind: 'unstorable', path: 'a[1].c' });
  });

  it.each([
    ['/graphql', () => ({})],
    ['/oauth/token', () => ({})],
    ['/webhooks/custom/{b}', () => ({ authorization: `Bearer ${shop.secret}` })],
    ['/v2/businesses/{b}/metrics', () => fx.tenant.headers],
  ])('is a 400 at %s, for arrays and objects alike', async (door, headers) => {
    const path = door.replace('{b}', door.startsWith('/webhooks') ? shop.businessId : fx.tenant.businessId);
    for (const body of [`{"query":"{ health { status } }","variables":{"x":${nested(10_000)}}}`, nestedObject(10_000)]) {
      const answer = await post(path, body, headers());
      expect(answer.status).toBe(400);
      if (door === '/oauth/token')
        expect(answer.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/nested more than 64 levels/) });
      else expect(answer.body.error).toMatchObject({ status: 400, code: 'bad_request', message: expect.stringMatching(/nested more than 64 levels deep/) });
    }
  });

  it('accepts 64 levels', async () => {
    const answer = await post('/graphql', `{"query":"{ health { status } }","variables":{"x":${nested(60)}}}`);
    expect(answer.status).toBe(200);
  });

  it('is a 400 in the variables of a GraphQL GET', async () => {
    const url = `${fx.server.url}/graphql?query=${encodeURIComponent('{ health { status } }')}&variables=${encodeURIComponent(`{"x":${nested(200)}}`)}`;
    const res = await fetch(url, { headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].message).toMatch(/nested more than 64 levels/);
  });
});

describe('GraphQL documents that ask for much work in few bytes', () => {
  it('refuses more than 30 aliases, before anything runs', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `s${i}: surveys(business: "${fx.tenant.businessId}", pageSize: 1) { total }`).join(' ');
    const { status, body } = await fx.server.graphql(`{ ${fields} }`, undefined, fx.tenant.headers);
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'aliases', aliases: 31, maxAliases: 30 });
    expect(body.data).toBeUndefined();
  });

  it('refuses 2,000 aliases of health, unauthenticated, while parsing (token limit)', async () => {
    const fields = Array.from({ length: 2_000 }, (_, i) => `h${i}: health { database }`).join(' ');
    const { status, body } = await fx.server.graphql(`{ ${fields} }`);
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(body.errors[0].message).toMatch(/Document contains more th\w+ 5000 tokens/);
  });

  it('refuses a document with more than 5 operations', async () => {
    const ops = Array.from({ length: 6 }, (_, i) => `query Q${i} { health { status } }`).join(' ');
    const res = await fetch(`${fx.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: ops, operationName: 'Q0' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].extensions).toMatchObject({ limit: 'operations', operations: 6, maxOperations: 5 });
  });

  it('gives every root field a base cost: 30 cheap list fields cost what their statements do', async () => {
    const fields = Array.from({ length: 30 }, (_, i) => `s${i}: surveys(business: "${fx.tenant.businessId}", pageSize: 1) { total }`).join(' ');
    const { status, body } = await fx.server.graphql(`{ ${fields} }`, undefined, fx.tenant.headers);
    expect(status).toBe(200);
    // 30 x (10 base + surveys + total)
    expect(body.extensions.cost).toMatchObject({ requested: 360, weight: 4 });
  });
});
