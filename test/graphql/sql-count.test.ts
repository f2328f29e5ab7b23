import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { countStatements } from '../helpers/sql-counter.js';
import { seedSurveys } from '../helpers/seed.js';
import { THREE_LEVEL_QUERY } from '../helpers/queries.js';

let server: TestServer;
useTestServer((s) => (server = s));

/**
 * Statements for one HTTP request, the token check apart (test/helpers/sql-counter.ts): the survey page (with its
 * total), one batch of steps, one batch of metrics. The size of the page must not change the number.
 */
async function statementsFor(surveys: number) {
  const tenant = await createTenant(server);
  await seedSurveys(server.orm, tenant.businessId, surveys);
  // Warm the server's signing-key cache (loaded once per process): steady state is what is measured.
  await server.graphql('query($b: ID!) { surveys(business: $b, pageSize: 1) { total } }', { b: tenant.businessId }, tenant.headers);
  const counter = countStatements(server.orm);
  try {
    const { body } = await server.graphql(THREE_LEVEL_QUERY, { b: tenant.businessId, s: 50 }, tenant.headers);
    expect(body.errors).toBeUndefined();
    const page = body.data.surveys;
    expect(page.total).toBe(surveys);
    expect(page.data).toHaveLength(surveys);
    for (const survey of page.data) {
      expect(survey.steps.map((s: any) => s.position)).toEqual([0, 1, 2, 3, 4]);
      for (const step of survey.steps) expect(step.metrics.metrics).toHaveLength(3);
    }
    return [...counter.statements];
  } finally {
    counter.restore();
  }
}

describe('SQL statements per list request', () => {
  it('50 surveys x 5 steps x 3 metrics: 3 statements, and the same for 5 surveys', async () => {
    const big = await statementsFor(50);
    const small = await statementsFor(5);
    expect(big.length).toBe(3);
    expect(small.length).toBe(big.length);
    expect(big.filter((s) => /from "survey_step"/.test(s))).toHaveLength(1);
    expect(big.filter((s) => /from "metric"/.test(s))).toHaveLength(1);
    expect(big.filter((s) => /from "survey" /.test(s))).toHaveLength(1);
  });
});

describe('SQL statements for orders with their lines, menu items and feedback', () => {
  async function ordersPage(orders: number) {
    const tenant = await createTenant(server);
    for (let i = 0; i < orders; i++) {
      const input = { externalOrderId: `O-${i}`, total: 10, currency: 'PKR', items: [{ name: `Dish ${i % 3}`, quantity: 1 }, { name: 'Tea' }] };
      const { body } = await server.graphql(
        `mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`,
        { b: tenant.businessId, i: input },
        tenant.headers,
      );
      expect(body.errors).toBeUndefined();
    }
    const query = `query($b: ID!) { orders(business: $b, pageSize: 50) { total data { id items { name menuItem { id name } } submissions { id } } } }`;
    await server.graphql(query, { b: tenant.businessId }, tenant.headers);
    const counter = countStatements(server.orm);
    try {
      const { body } = await server.graphql(query, { b: tenant.businessId }, tenant.headers);
      expect(body.errors).toBeUndefined();
      expect(body.data.orders.data).toHaveLength(orders);
      expect(body.data.orders.data.every((o: any) => o.items.length === 2 && o.items[1].menuItem.name === 'Tea')).toBe(true);
      return counter.statements.length;
    } finally {
      counter.restore();
    }
  }

  it('costs the same for 3 orders as for 12: page, lines, menu items, submissions', async () => {
    const small = await ordersPage(3);
    const big = await ordersPage(12);
    expect(big).toBe(small);
    expect(big).toBeLessThanOrEqual(4);
  });
});
