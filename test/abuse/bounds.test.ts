import { jest } from '@jest/globals';
import { SurveyStep } from '../../src/modules/survey/survey-step.entity.js';
import { useTenantServer } from '../helpers/auth.js';
import { ATTACKER, healthzDuring, postJsonFrom, requestFrom, RIGHTFUL } from '../helpers/from-address.js';
import { client, type Client } from '../helpers/graphql.js';
import { webhookBusiness, type WebhookBusiness } from '../ingest/ingest-helpers.js';

/**
 * Issue 33, item 9: REST ran its GraphQL operations without /graphql's cost limit, and the cost model's relation
 * lists (costed at 10 items) had no bound at all: a survey's steps, a step's metrics, an order's items. Each is now
 * bounded at every door that writes it, with a 400 naming the limit and the field, and REST is held to the cost limit.
 */
jest.setTimeout(60_000);

let c: Client;
let b: string;
let shop: WebhookBusiness;
const fx = useTenantServer({ tenant: { businessName: 'Bounded Bistro' } }, async ({ server, tenant }) => {
  c = client(server, tenant.headers);
  b = tenant.businessId;
  shop = await webhookBusiness(server);
});

const v2 = (path: string) => `${fx.server.url}/v2/businesses/${b}${path}`;
const newSurvey = async (name: string) =>
  (await c.data(`mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: {name: $n}) { id } }`, { b, n: name })).createSurvey.id as string;
const newMetric = async (name: string) =>
  (await c.data(`mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }`, { b, n: name })).createMetric.id as string;
const stepCount = async (survey: string) =>
  (await c.data(`query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s) { total } }`, { b, s: survey })).surveySteps.total as number;
/** The ordering system's POST of `order` to the shop's custom order webhook, from `address`. */
const webhookOrderFrom = (address: string, order: object) =>
  postJsonFrom(address, `${fx.server.url}/webhooks/custom/${shop.businessId}`, order, { authorization: `Bearer ${shop.secret}` });
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Item ${i}`, quantity: 1, unitPrice: 10 }));

describe('REST is held to the cost limit of /graphql', () => {
  it('refuses a page whose estimated cost is over 100,000, before it runs, naming expand; a smaller page is served', async () => {
    const survey = await newSurvey('Costly');
    await c.data(
      `mutation($b: ID!, $s: ID!, $m: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: metrics, metrics: {metrics: [$m]}}) { id } }`,
      { b, s: survey, m: await newMetric('Food') },
    );
    const costly = `/surveys?pageSize=100&expand=${encodeURIComponent('steps.metrics.metrics')}`;
    const { result, p95 } = await healthzDuring(fx.server.url, () =>
      Promise.all([
        requestFrom(ATTACKER, v2(costly), { headers: fx.tenant.headers }),
        requestFrom(RIGHTFUL, v2('/surveys?pageSize=50&expand=steps.metrics.metrics'), { headers: fx.tenant.headers }),
      ]),
    );
    expect(p95).toBeLessThan(200);
    const [refused, served] = result;
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: expect.stringMatching(/^expand: the request's estimated cost is \d+, over the limit of 100000/),
      details: [{ field: 'expand', message: expect.stringMatching(/over the limit of 100000 .*smaller pageSize or expand fewer relations/) }],
      requestId: expect.any(String),
    });
    expect(Number(/cost is (\d+)/.exec(refused.body.error.message)![1])).toBeGreaterThan(100_000);
    expect(served.status).toBe(200);
    expect(served.body.data.find((s: any) => s.id === survey).steps[0].metrics.metrics[0]).toMatchObject({ object: 'metric', name: 'Food' });
  });

  it('refuses the deepest expand of submissions at the largest page; a page of 10 is served', async () => {
    const survey = await newSurvey('Answers');
    const path = (size: number) => `/surveys/${survey}/submissions?pageSize=${size}&expand=${encodeURIComponent('survey.steps.metrics.metrics')}`;
    const refused = await requestFrom(ATTACKER, v2(path(100)), { headers: fx.tenant.headers });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'bad_request',
      details: [{ field: 'expand', message: expect.stringMatching(/over the limit of 100000/) }],
    });
    const served = await requestFrom(RIGHTFUL, v2(path(10)), { headers: fx.tenant.headers });
    expect(served.status).toBe(200);
  });
});

describe('steps per survey', () => {
  it('takes a survey to 100 steps and refuses the 101st at every door, naming steps and the limit', async () => {
    const survey = await newSurvey('Long');
    const em = fx.server.orm.em.fork();
    for (let position = 0; position < 99; position++) {
      em.create(SurveyStep, {
        business: b,
        survey,
        position,
        type: 'info',
        required: false,
        content: { title: `Step ${position}` },
        inputType: null,
        validation: null,
        logic: null,
        metricIds: [],
      });
    }
    await em.flush();
    const hundredth = await postJsonFrom(RIGHTFUL, v2(`/surveys/${survey}/steps`), { type: 'text' }, fx.tenant.headers);
    expect(hundredth.status).toBe(201);
    expect(hundredth.body.data.position).toBe(99);

    const rest = await postJsonFrom(ATTACKER, v2(`/surveys/${survey}/steps`), { type: 'text', position: 0 }, fx.tenant.headers);
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'steps', message: 'the survey has 100 steps, the most a survey may have (100)' }],
    });
    const graphql = await c.error(`mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: text}) { id } }`, { b, s: survey });
    expect(graphql).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'steps', message: expect.stringContaining('(100)') }] });
    expect(await stepCount(survey)).toBe(100);
  });
});

describe('metrics per step', () => {
  it('takes 10 metrics on a step and refuses 11, on create and on update, naming metrics.metrics', async () => {
    const survey = await newSurvey('Ratings');
    const metrics: string[] = [];
    for (let i = 0; i < 11; i++) metrics.push(await newMetric(`Metric ${i}`));
    const ten = await postJsonFrom(
      RIGHTFUL,
      v2(`/surveys/${survey}/steps`),
      { type: 'metrics', metrics: { metrics: metrics.slice(0, 10) } },
      fx.tenant.headers,
    );
    expect(ten.status).toBe(201);

    const eleven = await postJsonFrom(ATTACKER, v2(`/surveys/${survey}/steps`), { type: 'metrics', metrics: { metrics } }, fx.tenant.headers);
    expect(eleven.status).toBe(400);
    expect(eleven.body.error.details).toEqual([{ field: 'metrics.metrics', message: 'lists 11 metrics; a step rates at most 10' }]);
    const update = await c.error(
      `mutation($b: ID!, $s: ID!, $id: ID!, $m: [ID!]!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: {metrics: {metrics: $m}}) { id } }`,
      { b, s: survey, id: ten.body.data.id, m: metrics },
    );
    expect(update).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'metrics.metrics', message: expect.stringMatching(/at most 10/) }] });
    const step = await c.data(`query($b: ID!, $s: ID!, $id: ID!) { surveyStep(business: $b, survey: $s, id: $id) { metrics { metrics { id } } } }`, {
      b,
      s: survey,
      id: ten.body.data.id,
    });
    expect(step.surveyStep.metrics.metrics).toHaveLength(10);
    expect(await stepCount(survey)).toBe(1);
  });
});

describe('items per order', () => {
  const ordersWithId = async (externalOrderId: string) =>
    (await fx.server.orm.em.getConnection().execute(`select count(*)::int as count from customer_order where external_order_id = ?`, [externalOrderId]))[0]
      .count as number;

  it('refuses 501 items at GraphQL, REST and the order webhook, naming items and the limit, storing nothing; takes 500', async () => {
    const message = 'has 501 items; an order has at most 500';
    const viaGraphql = await c.error(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b,
      i: { externalOrderId: 'G-501', total: 10, currency: 'PKR', items: items(501) },
    });
    expect(viaGraphql).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'items', message }] });
    const viaRest = await postJsonFrom(ATTACKER, v2('/orders'), { externalOrderId: 'R-501', total: 10, currency: 'PKR', items: items(501) }, fx.tenant.headers);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error).toMatchObject({ status: 400, code: 'validation_failed', details: [{ field: 'items', message }] });
    // An order of `count` lines from the point of sale, posted to the webhook from `address`.
    const posOrder = (address: string, externalOrderId: string, total: string, count: number) =>
      webhookOrderFrom(address, { externalOrderId, total, currency: 'PKR', metadata: { source: 'pos' }, items: items(count) });
    const viaWebhook = await posOrder(ATTACKER, 'W-501', '10', 501);
    expect(viaWebhook.status).toBe(400);
    expect(viaWebhook.body.error).toMatchObject({ status: 400, code: 'validation_failed', details: [{ field: 'items', message }] });
    for (const id of ['G-501', 'R-501', 'W-501']) expect(await ordersWithId(id)).toBe(0);

    // The ordering system's largest order is taken whole.
    const fiveHundred = await posOrder(RIGHTFUL, 'W-500', '5000', 500);
    expect(fiveHundred.status).toBeLessThan(300);
    expect(await ordersWithId('W-500')).toBe(1);
    const [{ count }] = await fx.server.orm.em
      .getConnection()
      .execute(`select count(*)::int as count from order_item i join customer_order o on o.id = i.order_id where o.external_order_id = 'W-500'`);
    expect(count).toBe(500);
  });
});
