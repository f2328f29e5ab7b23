import { useTenantServer } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { codeBlocks, readDoc } from '../helpers/docs.js';
import { rest } from '../rest/rest.helpers.js';
import { createHook, verify, WEBHOOK_TEST_ENV } from '../webhooks/webhook-helpers.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { minimal, postWebhook, twoLines, uniqueId, withCustomer } from './ingest-helpers.js';

/**
 * One order model at every door (issue 47): the custom webhook's `data` is, key for key, what
 * `GET /v2/businesses/{b}/orders/{id}?expand=items` answers, `staff` included; the GraphQL `order` query shows the
 * same object (its relations as objects where REST has ids), and the `order.*` events' `data.object` is the order as
 * the API shows it, without its relations (`items`, `submissions`: docs/webhooks.md, "Event types").
 */
let secret: string;
let receiver: Receiver;
let hook: { id: string; secret: string };
const fx = useTenantServer({ server: { env: WEBHOOK_TEST_ENV, workers: true } }, async ({ server, tenant }) => {
  await server.orm.em.fork().getConnection().execute(`update business set country = 'PK' where id = ?`, [tenant.businessId]);
  ({ secret } = await connectCustomIntegration(server.orm.em.fork(), tenant.businessId));
  receiver = await startReceiver();
  hook = await createHook(client(server, tenant.headers), tenant.businessId, `${receiver.url}/orders`, ['order.created', 'order.updated']);
});
afterAll(() => receiver?.close());

const orders = () => `/v2/businesses/${fx.tenant.businessId}/orders`;
const webhook = async (body: object) => {
  const answer = await postWebhook(fx.server, fx.tenant.businessId, body, { secret });
  expect(answer.status).toBe(200);
  return answer.body as { data: Record<string, any>; url: string };
};
const apiOrder = async (id: string, query = '?expand=items') => {
  const got = await rest(fx.server, 'GET', `${orders()}/${id}${query}`, { tenant: fx.tenant });
  expect(got.status).toBe(200);
  return got.body.data as Record<string, any>;
};

/** The order's fields and its lines', as the schema declares them (every field, so a new one is compared too). */
let orderQuery: string;
async function graphqlOrderQuery(): Promise<string> {
  const gql = client(fx.server, fx.tenant.headers).data;
  const typeQuery = `query($n: String!) { __type(name: $n) { fields { name type { kind ofType { kind ofType { kind ofType { kind } } } } } } }`;
  const selection = async (name: string): Promise<string> => {
    const { __type } = await gql(typeQuery, { n: name });
    const parts: string[] = [];
    for (const field of __type.fields as { name: string; type: any }[]) {
      let type = field.type;
      while (type.kind === 'NON_NULL' || type.kind === 'LIST') type = type.ofType;
      if (type.kind !== 'OBJECT') parts.push(field.name);
      else if (name === 'Order' && field.name === 'items') parts.push(`items { ${await selection('OrderItem')} }`);
      else parts.push(`${field.name} { id }`);
    }
    return parts.join(' ');
  };
  return `query($b: ID!, $id: ID!) { order(business: $b, id: $id) { ${await selection('Order')} } }`;
}

/** A GraphQL object with its relations as ids, as REST shows them (`business { id }` is `business`). */
function asIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asIds);
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'id') return (value as { id: string }).id;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'metadata' ? v : asIds(v)]));
  }
  return value;
}

async function graphqlOrder(id: string) {
  orderQuery ??= await graphqlOrderQuery();
  return asIds((await client(fx.server, fx.tenant.headers).data(orderQuery, { b: fx.tenant.businessId, id })).order) as Record<string, any>;
}

/** The event of `type` about order `id` as the webhook's receiver got it (signature verified). */
async function delivered(type: string, id: string, after = 0): Promise<Record<string, any>> {
  const request = await receiver.waitFor((r) => {
    const event = JSON.parse(r.body);
    return event.type === type && event.data.object.id === id && event.data.object.updatedAt >= after;
  });
  const event = verify(hook.secret, request) as { data: { object: Record<string, any> } };
  return event.data.object;
}

/** The API's order without its relations: what an event carries. */
const alone = ({ items: _items, submissions: _submissions, ...order }: Record<string, any>) => order;

/** Every door's view of order `id` equals the webhook's `data`; also the event's object, when `event` is given. */
async function expectOneModel(data: Record<string, any>, event?: { type: string; after?: number }) {
  const viaApi = await apiOrder(data.id);
  expect(data).toStrictEqual(viaApi);
  expect(await graphqlOrder(data.id)).toStrictEqual(viaApi);
  if (event) {
    const object = await delivered(event.type, data.id, event.after);
    // The order alone, as GET without expand shows it but for the relations (its lines are ids there).
    expect(object).toStrictEqual(alone(await apiOrder(data.id, '')));
  }
}

const CASES = [
  { staff: true, items: true, location: true },
  { staff: true, items: true, location: false },
  { staff: true, items: false, location: true },
  { staff: true, items: false, location: false },
  { staff: false, items: true, location: true },
  { staff: false, items: true, location: false },
  { staff: false, items: false, location: true },
  { staff: false, items: false, location: false },
];

describe('the webhook answer, the orders API, GraphQL and the events show one order', () => {
  it.each(CASES)('%o', async ({ staff, items, location }) => {
    const body: Record<string, unknown> = withCustomer({
      // The business's staffKey is `server` (the default): the server's name travels in the metadata.
      metadata: { orderType: 'delivery', ...(staff ? { server: '  Ali  ' } : {}) },
      ...(location ? { externalLocationId: `DHA-${uniqueId()}`, externalBrandId: 'brand-1' } : {}),
      ...(items ? { items: twoLines() } : {}),
    });
    const { data, url } = await webhook(body);
    expect(url).toBe(`${orders()}/${data.id}`);
    expect(data.staff).toBe(staff ? 'Ali' : null);
    expect(data.items).toHaveLength(items ? 2 : 0);
    expect(data.externalLocationId).toBe(location ? body.externalLocationId : null);
    await expectOneModel(data, { type: 'order.created' });

    // A repeat that accepts it answers (and records) the same model.
    const accepted = await webhook({ ...body, payment: true });
    expect(accepted.data).toMatchObject({ id: data.id, status: 'ACCEPTED', staff: data.staff });
    await expectOneModel(accepted.data, { type: 'order.updated' });
  });

  it('staff set later (PATCH metadata), then a new staffKey: the webhook answers what the API reads, at once', async () => {
    const body = minimal({ metadata: { orderType: 'takeaway' }, items: [{ name: `Chai ${uniqueId()}`, quantity: 1 }] });
    const first = await webhook(body);
    expect(first.data.staff).toBeNull();

    // PATCH the order's metadata: the `order.updated` event carries the new staff too.
    const patched = await rest(fx.server, 'PATCH', `${orders()}/${first.data.id}`, {
      tenant: fx.tenant,
      body: { metadata: { orderType: 'takeaway', server: 'Sara', waiter: 'Wasim' } },
    });
    expect([patched.status, patched.body.data.staff]).toEqual([200, 'Sara']);
    expect(patched.body.data).toStrictEqual(await apiOrder(first.data.id, ''));
    const repeat = await webhook(body);
    expect(repeat.data.staff).toBe('Sara');
    await expectOneModel(repeat.data, { type: 'order.updated', after: patched.body.data.updatedAt });

    // The business names another key: every door shows the order's value for it, the webhook's next answer included.
    const business = `/v2/businesses/${fx.tenant.businessId}`;
    try {
      expect((await rest(fx.server, 'PATCH', business, { tenant: fx.tenant, body: { staffKey: 'waiter' } })).status).toBe(200);
      const renamed = await webhook(body);
      expect(renamed.data.staff).toBe('Wasim');
      await expectOneModel(renamed.data);
      const fresh = await webhook(minimal({ metadata: { waiter: 'Zara' } }));
      expect(fresh.data.staff).toBe('Zara');
      await expectOneModel(fresh.data, { type: 'order.created' });
    } finally {
      await rest(fx.server, 'PATCH', business, { tenant: fx.tenant, body: { staffKey: null } });
    }
  });

  it('an order created through the API (REST and GraphQL) shows the same model as the webhook answer shows', async () => {
    const input = { externalOrderId: uniqueId(), total: 10, currency: 'PKR', metadata: { server: 'Omar' }, items: [{ name: `Naan ${uniqueId()}` }] };
    const created = await rest(fx.server, 'POST', `${orders()}?expand=items`, { tenant: fx.tenant, body: input });
    expect([created.status, created.body.data.staff]).toEqual([201, 'Omar']);
    expect(created.body.data).toStrictEqual(await apiOrder(created.body.data.id));
    await expectOneModel((await webhook({ ...input, total: '10' })).data, { type: 'order.created' });
  });
});

describe('docs/custom-webhook.md', () => {
  /** The guide's answer as a pattern: its placeholder ids (`ord_01J...`) any id of that kind, its timestamps any. */
  function pattern(value: unknown, key = ''): unknown {
    if (typeof value === 'string' && value.endsWith('...')) return expect.stringMatching(new RegExp(`^${value.slice(0, value.indexOf('_') + 1)}[0-9A-Z]{26}$`));
    if (key === 'createdAt' || key === 'updatedAt') return expect.any(Number);
    if (Array.isArray(value)) return value.map((v) => pattern(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'metadata' ? v : pattern(v, k)]));
    return value;
  }

  it("the request's example answers the response's example, `staff` included, and the API shows the same", async () => {
    const guide = readDoc('docs/custom-webhook.md');
    const [request] = codeBlocks(guide, 'http');
    const [response] = codeBlocks(guide, 'json').map((block) => JSON.parse(block));
    const answer = await webhook(JSON.parse(request.slice(request.indexOf('\n{'))));
    expect(answer).toStrictEqual({ ...(pattern(response) as object), url: `${orders()}/${answer.data.id}` });
    expect(answer.data.business).toBe(fx.tenant.businessId);
    await expectOneModel(answer.data, { type: 'order.created' });
  });
});
