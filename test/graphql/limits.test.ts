import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { THREE_LEVEL_QUERY } from '../helpers/queries.js';

let server: TestServer;
let headers: Record<string, string>;
let b: string;
beforeAll(async () => {
  server = await startTestServer();
  const t = await createTenant(server);
  headers = t.headers;
  b = t.businessId;
});
afterAll(() => server?.stop());

describe('depth and cost limits on /graphql', () => {
  it('runs the three-level survey page, even at the largest page size', async () => {
    const { status, body } = await server.graphql(THREE_LEVEL_QUERY, { b, s: 100 }, headers);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it('refuses an operation nested deeper than 8 levels, before running it', async () => {
    // surveys.data.steps.survey.steps.survey.steps.survey.id = 9 levels
    const deep = `query($b: ID!) { surveys(business: $b, pageSize: 1) { data { steps { survey { steps { survey { steps { survey { id } } } } } } } } }`;
    const { status, body } = await server.graphql(deep, { b }, headers);
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'depth', depth: 9, maxDepth: 8 });
    expect(body.data).toBeUndefined();
  });

  it('counts depth through fragments', async () => {
    const q = `query($b: ID!) { surveys(business: $b, pageSize: 1) { ...S } }
      fragment S on SurveyList { data { steps { survey { steps { ... on SurveyStep { survey { steps { survey { id } } } } } } } } }`;
    const { body } = await server.graphql(q, { b }, headers);
    expect(body.errors[0].extensions.limit).toBe('depth');
  });

  it('refuses an operation whose estimated cost exceeds the limit', async () => {
    // 100 surveys x 10 steps x 10 metrics x several fields, twice over with aliases.
    const costly = `query($b: ID!) {
      a: surveys(business: $b, pageSize: 100) { data { steps { survey { steps { metrics { metrics { id name } } } } } } }
      b: surveys(business: $b, pageSize: 100) { data { steps { survey { steps { metrics { metrics { id name } } } } } } }
    }`;
    const { status, body } = await server.graphql(costly, { b }, headers);
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'cost', maxCost: 100000 });
    expect(body.errors[0].extensions.cost).toBeGreaterThan(100000);
  });

  it('counts a page size given by a variable at its value (dashboards pass page sizes as variables)', async () => {
    const q = `query($b: ID!, $s: Int) { surveys(business: $b, pageSize: $s) { data { steps { survey { steps { metrics { metrics { id name description } } } } } } } }`;
    const small = await server.graphql(q, { b, s: 1 }, headers);
    expect(small.status).toBe(200);
    expect(small.body.errors).toBeUndefined();
    const defaulted = await server.graphql(q, { b }, headers); // no value: the list's default of 20
    expect(defaulted.status).toBe(200);
    const large = await server.graphql(q, { b, s: 100 }, headers);
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'cost', maxCost: 100000 });
    expect(large.body.data).toBeUndefined();
  });

  it('accepts the dashboard page of 50 surveys x steps x metrics with its page size as a variable', async () => {
    const q = `query($b: ID!, $s: Int) { surveys(business: $b, pageSize: $s) { total data { id name steps { id position metrics { metrics { id name scale { min max } } } } } } }`;
    const { status, body } = await server.graphql(q, { b, s: 50 }, headers);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it('leaves introspection (Apollo Sandbox) alone', async () => {
    const { status, body } = await server.graphql(
      `{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } } }`,
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });
});
