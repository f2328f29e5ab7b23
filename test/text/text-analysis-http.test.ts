import { createTenant, useTenantServer } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { expectError, rest } from '../rest/rest.helpers.js';

/** POST /v2/businesses/{b}/text-analysis and GraphQL textAnalysis over real HTTP (issue 52, item 2). */
const fx = useTenantServer({}, async ({ server, tenant }) => {
  // The menu comes from order lines, as an ordering system sends them.
  const order = await rest(server, 'POST', `/v2/businesses/${tenant.businessId}/orders`, {
    tenant,
    body: { externalOrderId: 'T-1', total: 2400, currency: 'PKR', items: [{ name: 'Chicken Biryani' }, { name: 'Kheer' }, { name: 'Karahi' }] },
  });
  expect(order.status).toBe(201);
});
const path = () => `/v2/businesses/${fx.tenant.businessId}/text-analysis`;

it('answers one analysis per text, in order, with the shape of the contract and the menu’s dishes', async () => {
  const texts = ['The biriyani was delicious but the waiter was rude', 'khana thanda tha aur bohat mehnga', 'کھیر بہت مزیدار تھی', 'I ordered a tea.'];
  const answer = await rest(fx.server, 'POST', path(), { tenant: fx.tenant, body: { texts } });
  expect(answer.status).toBe(200);
  expect(answer.body.object).toBe('list');
  expect(answer.body.data).toHaveLength(4);
  const [first, second, third, fourth] = answer.body.data;
  expect(Object.keys(first).sort()).toEqual(['dishes', 'language', 'sentiment', 'themes']);
  expect(first.language).toBe('en');
  expect(first.sentiment).toEqual({ score: expect.any(Number), label: expect.stringMatching(/^(positive|neutral|negative)$/) });
  expect(first.themes).toEqual([
    { theme: 'food', sentiment: 'positive', words: ['biriyani', 'delicious'] },
    { theme: 'staff', sentiment: 'negative', words: ['waiter', 'rude'] },
  ]);
  const menu = await rest(fx.server, 'GET', `/v2/businesses/${fx.tenant.businessId}/menu-items`, { tenant: fx.tenant });
  const idOf = (name: string) => menu.body.data.find((m: any) => m.name === name).id;
  expect(first.dishes).toEqual([{ name: 'Chicken Biryani', menuItem: idOf('Chicken Biryani'), sentiment: 'positive' }]);
  expect(second).toEqual({
    language: 'ur-Latn',
    sentiment: { score: expect.any(Number), label: 'negative' },
    themes: [
      { theme: 'food', sentiment: 'negative', words: ['khana', 'thanda'] },
      { theme: 'price', sentiment: 'negative', words: ['mehnga'] },
    ],
    dishes: [],
  });
  expect(second.sentiment.score).toBeLessThan(0);
  expect(third.language).toBe('ur');
  expect(third.dishes).toEqual([{ name: 'Kheer', menuItem: idOf('Kheer'), sentiment: 'positive' }]);
  expect(fourth).toEqual({ language: 'en', sentiment: { score: 0, label: 'neutral' }, themes: [], dishes: [] });
});

it('GraphQL textAnalysis answers the same', async () => {
  const texts = ['The biriyani was delicious but the waiter was rude', 'کھیر بہت مزیدار تھی'];
  const viaRest = await rest(fx.server, 'POST', path(), { tenant: fx.tenant, body: { texts } });
  const data = await client(fx.server, fx.tenant.headers).data(
    `query($b: ID!, $t: [String!]!) { textAnalysis(business: $b, texts: $t) { language sentiment { score label } themes { theme sentiment words } dishes { name menuItem sentiment } } }`,
    { b: fx.tenant.businessId, t: texts },
  );
  expect(data.textAnalysis).toEqual(viaRest.body.data);
});

describe('a malformed body is a 400 with the error body, naming the field', () => {
  it.each([
    ['no texts', { texts: [] }, 'texts'],
    ['no body field', {}, 'texts'],
    ['101 texts', { texts: Array.from({ length: 101 }, (_, i) => `text ${i}`) }, 'texts'],
    ['a 2,001-character text', { texts: ['fine', 'x'.repeat(2001)] }, 'texts[1]'],
    ['texts not an array', { texts: 'good food' }, 'texts'],
    ['a text not a string', { texts: ['good', 5] }, 'texts[1]'],
    ['a null text', { texts: [null] }, 'texts[0]'],
    ['an unknown field', { texts: ['good'], language: 'en' }, 'language'],
    ['a NUL character', { texts: ['good', 'bad\u0000'] }, 'texts[1]'],
  ])('%s', async (_name, body, field) => {
    const answer = await rest(fx.server, 'POST', path(), { tenant: fx.tenant, body });
    expectError(answer, 400);
    expect(answer.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('a body that is not a JSON object', async () => {
    expectError(await rest(fx.server, 'POST', path(), { tenant: fx.tenant, body: ['good food'] }), 400);
  });

  it('2,000 characters of Urdu (two bytes each) are within the limit', async () => {
    const answer = await rest(fx.server, 'POST', path(), { tenant: fx.tenant, body: { texts: ['ا'.repeat(2000)] } });
    expect(answer.status).toBe(200);
  });
});

it('needs submissions:read, and the token’s own business', async () => {
  const without = await createTenant(fx.server, { scopes: ['surveys:read', 'analytics:read'] });
  const refused = await rest(fx.server, 'POST', `/v2/businesses/${without.businessId}/text-analysis`, { tenant: without, body: { texts: ['good'] } });
  expectError(refused, 403, 'forbidden');
  expect(refused.body.error.message).toMatch(/submissions:read/);
  const other = await rest(fx.server, 'POST', `/v2/businesses/${without.businessId}/text-analysis`, { tenant: fx.tenant, body: { texts: ['good'] } });
  expectError(other, 403, 'forbidden');
  expectError(await rest(fx.server, 'POST', path(), { body: { texts: ['good'] } }), 401, 'unauthorized');
});

it('is in /openapi.json: the body, the list answer and the scope', async () => {
  const doc = await (await fetch(`${fx.server.url}/openapi.json`)).json();
  const operation = doc.paths['/v2/businesses/{business}/text-analysis'].post;
  expect(operation.security).toEqual([{ oauth2: ['submissions:read'] }, { bearerAuth: [] }]);
  expect(operation.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/TextAnalysisBody' } } } });
  expect(doc.components.schemas.TextAnalysisBody.required).toEqual(['texts']);
  expect(operation.responses['200'].content['application/json'].schema.properties.object).toEqual({ const: 'list' });
});
