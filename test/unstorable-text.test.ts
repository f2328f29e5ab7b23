import { useTestServer, type TestServer } from './helpers/server.js';
import { createTenant, type Tenant } from './helpers/auth.js';

// PostgreSQL stores neither U+0000 nor half a surrogate pair: every door answers 400, nothing is stored, never a 500.
let server: TestServer;
let tenant: Tenant;
useTestServer(async (s) => {
  server = s;
  tenant = await createTenant(s);
});

const count = async (table: string) => Number((await server.orm.em.fork().getConnection().execute(`select count(*) as n from ${table}`))[0].n);

describe('text PostgreSQL cannot store', () => {
  it.each([
    ['a NUL in a variable', 'mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }', { n: 'Food\u0000' }, 'n'],
    ['a lone high surrogate', 'mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: {name: $n}) { id } }', { n: '\ud800x' }, 'n'],
    [
      'a lone low surrogate in JSON metadata',
      'mutation($b: ID!, $m: JSONObject!) { createLocation(business: $b, input: {name: "x", metadata: $m}) { id } }',
      { m: { k: 'a\udc00' } },
      'm.k',
    ],
    [
      'a NUL in a JSON key',
      'mutation($b: ID!, $m: JSONObject!) { createLocation(business: $b, input: {name: "x", metadata: $m}) { id } }',
      { m: { 'k\u0000': 'v' } },
      'm.k\u0000',
    ],
  ])('GraphQL variables: %s is a 400 naming where it is', async (_name, query, variables, field) => {
    const before = await count('event');
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tenant.headers },
      body: JSON.stringify({ query, variables: { b: tenant.businessId, ...variables } }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({
      status: 400,
      code: 'bad_request',
      details: [{ field: `variables.${field}`, message: expect.stringMatching(/U\+0000 or an unpaired UTF-16 surrogate/) }],
    });
    expect(await count('event')).toBe(before);
  });

  it('an escape inside an inline GraphQL string literal is refused by the database and answered as BAD_USER_INPUT', async () => {
    const { body } = await server.graphql(
      `mutation($b: ID!) { createMetric(business: $b, input: {name: "Food\\u0000"}) { id } }`,
      { b: tenant.businessId },
      tenant.headers,
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(body.errors[0].message).toMatch(/cannot be stored/);
    expect(await count('metric')).toBe(0);
  });

  it('a REST filter value with a NUL is a 400', async () => {
    const filter = encodeURIComponent(JSON.stringify({ field: 'name', type: 'eq', value: 'x\u0000' }));
    const res = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/surveys?filters=${filter}`, { headers: tenant.headers });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/filters.name.eq contains a character that cannot be stored/),
    });
  });

  it('a GraphQL GET with a NUL in its variables is a 400', async () => {
    const query = encodeURIComponent('query($b: ID!, $n: String) { surveys(business: $b, where: {name: {eq: $n}}) { total } }');
    const variables = encodeURIComponent(JSON.stringify({ b: tenant.businessId, n: 'x\u0000' }));
    const res = await fetch(`${server.url}/graphql?query=${query}&variables=${variables}`, { headers: { ...tenant.headers, 'apollo-require-preflight': '1' } });
    expect(res.status).toBe(400);
  });
});
