import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { countStatements } from '../helpers/sql-counter.js';
import { seedSurveys } from '../helpers/seed.js';
import { rest } from './rest.helpers.js';
import { REST_SURVEY_PAGE_QUERY as QUERY } from '../helpers/queries.js';

let server: TestServer;
useTestServer((s) => (server = s));

async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const counter = countStatements(server.orm);
  try {
    const result = await fn();
    return { result, statements: [...counter.statements] };
  } finally {
    counter.restore();
  }
}

it('50 surveys with expand=steps.metrics.metrics: the same SQL statements and the same data as /graphql', async () => {
  const tenant = await createTenant(server);
  const b = tenant.businessId;
  await seedSurveys(server.orm, b, 50);
  const path = `/v2/businesses/${b}/surveys?pageSize=50&expand=steps.metrics.metrics`;
  // Warm both paths (signing keys, token check cache, the REST document cache): steady state is what is compared.
  await rest(server, 'GET', path, { tenant });
  await server.graphql(QUERY, { b }, tenant.headers);

  const viaRest = await measure(() => rest(server, 'GET', path, { tenant }));
  const viaGraphql = await measure(() => server.graphql(QUERY, { b }, tenant.headers));
  expect(viaRest.result.status).toBe(200);
  expect(viaGraphql.result.body.errors).toBeUndefined();

  expect(viaRest.statements.length).toBe(viaGraphql.statements.length);
  expect(viaRest.statements.length).toBeLessThanOrEqual(3);
  expect(viaRest.statements.map((s) => s.replace(/\s+/g, ' '))).toEqual(viaGraphql.statements.map((s) => s.replace(/\s+/g, ' ')));

  const page = viaGraphql.result.body.data.surveys;
  const expected = {
    object: 'list',
    page: page.page,
    pageSize: page.pageSize,
    total: page.total,
    hasMore: page.hasMore,
    links: expect.objectContaining({ previous: null }),
    data: page.data.map((survey: any) => ({
      ...survey,
      business: b,
      steps: survey.steps.map((step: any) => ({
        ...step,
        business: b,
        survey: survey.id,
        metrics: step.metrics && { metrics: step.metrics.metrics.map((m: any) => ({ ...m, business: b })) },
      })),
    })),
  };
  expect(viaRest.result.body).toEqual(expected);
  expect(viaRest.result.body.data).toHaveLength(50);
  expect(viaRest.result.body.data[0].steps).toHaveLength(5);
  expect(viaRest.result.body.data[0].steps[0].metrics.metrics).toHaveLength(3);
});
