import { useTenantServer } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { rest } from '../rest/rest.helpers.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { minimal, postWebhook, twoLines, uniqueId, withCustomer } from './ingest-helpers.js';

/**
 * The webhook is a door into the order module, not a second one: every order-field rule gives the same outcome
 * through the webhook and through createOrder (here by REST, which runs it through GraphQL), and the webhook's
 * answer is the order exactly as the orders API shows it.
 */
let secret: string;
let orders: string;
const fx = useTenantServer({}, async ({ server, tenant }) => {
  await server.orm.em.fork().getConnection().execute(`update business set country = 'PK' where id = ?`, [tenant.businessId]);
  ({ secret } = await connectCustomIntegration(server.orm.em.fork(), tenant.businessId));
  orders = `/v2/businesses/${tenant.businessId}/orders`;
});

const webhook = (body: object) => postWebhook(fx.server, fx.tenant.businessId, body, { secret });
const getOrder = (id: string) => rest(fx.server, 'GET', `${orders}/${id}?expand=items`, { tenant: fx.tenant });

describe('the webhook answer is the order as the orders API shows it', () => {
  it('creation: data deep-equals GET /v2/businesses/{b}/orders/{id}?expand=items, every key', async () => {
    const body = withCustomer({ externalLocationId: 'DHA-2', externalBrandId: 'brand-1', items: twoLines() });
    const answer = await webhook(body);
    expect(answer.status).toBe(200);
    const got = await getOrder(answer.body.data.id);
    expect(got.status).toBe(200);
    expect(answer.body.data).toStrictEqual(got.body.data);
    expect(answer.body.url).toBe(`${orders}/${answer.body.data.id}`);
  });

  it('a repeat (PENDING -> ACCEPTED, and unchanged), with feedback linked meanwhile: data deep-equals the API too', async () => {
    const body = minimal({ items: [{ name: `Chai ${uniqueId()}`, quantity: 1 }] });
    await webhook(body);
    const gql = client(fx.server, fx.tenant.headers).data;
    const b = fx.tenant.businessId;
    const survey = (await gql('mutation($b: ID!) { createSurvey(business: $b, input: {name: "Visit"}) { id } }', { b })).createSurvey.id;
    const step = (
      await gql('mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }', {
        b,
        s: survey,
        i: { type: 'text' },
      })
    ).createSurveyStep.id;
    const linked = await gql(
      'mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id order { id } } }',
      {
        b,
        s: survey,
        i: { answers: [{ step, value: 'lovely' }], custom: { customOrderId: body.externalOrderId } },
      },
    );
    for (const payment of [true, true]) {
      const answer = await webhook({ ...body, payment });
      expect(answer.body.data.status).toBe('ACCEPTED');
      expect(answer.body.data).toStrictEqual((await getOrder(answer.body.data.id)).body.data);
      expect(answer.body.data.submissions).toEqual([linked.createSubmission.id]);
    }
  });
});

/** What a rule gives: the stored value at `path`, or the refused fields with their messages. */
type Outcome = { value: unknown } | { refused: { field: string; message: string }[] };
const at = (order: any, path: string) => path.split('.').reduce((o, k) => o?.[k], order);

async function outcome(door: 'webhook' | 'api', patch: Patch, path: string): Promise<Outcome> {
  const body = minimal(typeof patch === 'function' ? patch() : patch);
  const answer = door === 'webhook' ? await webhook(body) : await rest(fx.server, 'POST', `${orders}?expand=items`, { tenant: fx.tenant, body });
  if (answer.status === 200 || answer.status === 201) return { value: at(answer.body.data, path) };
  expect([answer.status, answer.body.error.code]).toEqual([400, 'validation_failed']);
  return { refused: answer.body.error.details };
}

const long = (n: number) => 'x'.repeat(n);
const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const item = (fields: object) => ({ items: [{ name: 'Tea', ...fields }] });

// [rule, fields sent (over the smallest valid order), where to look, expected: a stored value or the refused fields]
// (fields as a function: each door gets its own, where the two orders must not share an external id)
type Patch = Record<string, unknown> | (() => Record<string, unknown>);
const RULES: [string, Patch, string, unknown | { refused: string[] }][] = [
  ['externalOrderId at most 200', { externalOrderId: long(201) }, 'externalOrderId', { refused: ['externalOrderId'] }],
  ['externalOrderId not blank', { externalOrderId: '  ' }, 'externalOrderId', { refused: ['externalOrderId'] }],
  ['externalOrderId trimmed', () => ({ externalOrderId: ` trim-${uniqueId()} ` }), 'externalOrderId', expect.stringMatching(/^trim-\S+$/)],
  ['externalLocationId at most 200', { externalLocationId: long(201) }, 'externalLocationId', { refused: ['externalLocationId'] }],
  ['externalBrandId at most 200', { externalBrandId: long(201) }, 'externalBrandId', { refused: ['externalBrandId'] }],
  ['customerName at most 300', { customerName: long(301) }, 'customerName', { refused: ['customerName'] }],
  ['customerName trimmed', { customerName: '  Ali  ' }, 'customerName', 'Ali'],
  ['metadata at most 100 entries', { metadata: entries(101) }, 'metadata', { refused: ['metadata'] }],
  ['metadata 100 entries', { metadata: entries(100) }, 'metadata', entries(100)],
  ['metadata key at most 200', { metadata: { [long(201)]: 'v' } }, 'metadata', { refused: [`metadata.${long(201)}`] }],
  ['metadata key not empty', { metadata: { '': 'v' } }, 'metadata', { refused: ['metadata.'] }],
  ['metadata value at most 500', { metadata: { k: long(501) } }, 'metadata', { refused: ['metadata.k'] }],
  ['metadata values are strings', { metadata: { k: 1 } }, 'metadata', { refused: ['metadata.k'] }],
  ['metadata verbatim, dotted keys too', { metadata: { 'pos.version': ' 3.1 ', e: '' } }, 'metadata', { 'pos.version': ' 3.1 ', e: '' }],
  ['money string', { total: 'Rs. 1,250.00' }, 'total', 1250],
  ['money number', { total: 99.99 }, 'total', 99.99],
  ['money without digits', { total: 'free' }, 'total', { refused: ['total'] }],
  ['money not negative', { subtotal: '-3' }, 'subtotal', { refused: ['subtotal'] }],
  ['money below 10^15', { deliveryCharge: 1e15 }, 'deliveryCharge', { refused: ['deliveryCharge'] }],
  ['item money', item({ unitPrice: '$12.5', salesTaxAmount: 'Rs. 2' }), 'items.0.unitPrice', 12.5],
  ['item money refused', item({ totalPrice: 'free' }), 'items.0.totalPrice', { refused: ['items[0].totalPrice'] }],
  ['quantity from 0', item({ quantity: 0 }), 'items.0.quantity', 0],
  ['quantity not negative', item({ quantity: -1 }), 'items.0.quantity', { refused: ['items[0].quantity'] }],
  ['salesTaxPercent a number', item({ salesTaxPercent: 16 }), 'items.0.salesTaxPercent', 16],
  ['salesTaxPercent a string', item({ salesTaxPercent: '16%' }), 'items.0.salesTaxPercent', 16],
  ['salesTaxPercent at most 100', item({ salesTaxPercent: 101 }), 'items.0.salesTaxPercent', { refused: ['items[0].salesTaxPercent'] }],
  ['salesTaxPercent not text', item({ salesTaxPercent: 'x' }), 'items.0.salesTaxPercent', { refused: ['items[0].salesTaxPercent'] }],
  ['item name at most 300', item({ name: long(301) }), 'items', { refused: ['items[0].name'] }],
  ['item itemId at most 200', item({ itemId: long(201) }), 'items', { refused: ['items[0].itemId'] }],
  ['itemComment at most 10000', item({ itemComment: long(10_001) }), 'items', { refused: ['items[0].itemComment'] }],
  ['a line without name or itemId is ignored', { items: [{ quantity: 3 }, { name: ' Naan ' }] }, 'items.0.name', 'Naan'],
  ['currency any case', { currency: 'usd' }, 'currency', 'USD'],
  ['currency ISO 4217', { currency: 'XYZ' }, 'currency', { refused: ['currency'] }],
  ['channel spelled any way', { channel: 'food_panda' }, 'channel', 'FOODPANDA'],
  ['channel spaced', { channel: 'Call In' }, 'channel', 'CALL-IN'],
  ['channel unknown', { channel: 'Uber Eats' }, 'channel', 'OTHER'],
  ['e-mail lower-cased', { customerEmail: ' A.B@Example.COM ' }, 'customerEmail', 'a.b@example.com'],
  ['e-mail invalid dropped', { customerEmail: 'nope' }, 'customerEmail', null],
  ['phone in the business country', { customerPhoneNumber: '0300 1234567' }, 'customerPhoneNumber', '+923001234567'],
  ['phone invalid dropped', { customerPhoneNumber: '12' }, 'customerPhoneNumber', null],
  ['phone over 64 characters dropped', { customerPhoneNumber: '+92 300 1234567'.padEnd(65) }, 'customerPhoneNumber', null],
  ['phone of 64 characters kept', { customerPhoneNumber: '+92 300 1234567'.padEnd(64) }, 'customerPhoneNumber', '+923001234567'],
];

describe('one set of order-field rules, through both doors', () => {
  it.each(RULES)('%s', async (_rule, patch, path, expected) => {
    const viaWebhook = await outcome('webhook', patch, path);
    const viaApi = await outcome('api', patch, path);
    if (typeof patch !== 'function') expect(viaApi).toEqual(viaWebhook); // same value, or same details and messages
    for (const got of [viaWebhook, viaApi]) {
      if (expected && typeof expected === 'object' && 'refused' in expected) {
        expect('refused' in got && got.refused.map((d) => d.field)).toEqual((expected as { refused: string[] }).refused);
      } else {
        expect(got).toEqual({ value: expected });
      }
    }
  });

  it('what interface 4.9 adds at the webhook only: metadata with at least one entry (the API takes none)', async () => {
    expect(await outcome('webhook', { metadata: {} }, 'metadata')).toEqual({ refused: [{ field: 'metadata', message: 'must have at least one entry' }] });
    expect(await outcome('api', { metadata: {} }, 'metadata')).toEqual({ value: {} });
  });
});
