import { useTestServer, type TestServer } from '../helpers/server.js';
import { connectCustomIntegration, disconnectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { generateSecret, hashSecret } from '../../src/shared/secrets.js';
import { minimal, postWebhook, rows, uniqueId, webhookBusiness, type WebhookBusiness } from './ingest-helpers.js';

let server: TestServer;
let shop: WebhookBusiness;
useTestServer(async (s) => {
  server = s;
  shop = await webhookBusiness(s);
});

const details = (body: any) => body.error.details.map((d: any) => d.field);

describe('authentication (401)', () => {
  const expect401 = (res: { status: number; body: any }) => {
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(expect.objectContaining({ status: 401, code: 'unauthorized', requestId: expect.stringMatching(/^req_/) }));
  };

  it('refuses a missing secret, a wrong secret, another scheme, an unknown business and a malformed id alike', async () => {
    const missing = await shop.post(minimal(), { secret: null });
    const wrong = await shop.post(minimal(), { secret: 'whsec_wrong' });
    const basic = await shop.post(minimal(), { secret: null, headers: { authorization: `Basic ${shop.secret}` } });
    const unknown = await postWebhook(server, 'bus_01M7ZQR5HHMHA18CVRNQ07HW2G', minimal(), { secret: shop.secret });
    const malformed = await postWebhook(server, 'not-a-business', minimal(), { secret: shop.secret });
    for (const res of [missing, wrong, basic, unknown, malformed]) expect401(res);
    // Nothing tells the caller which case it was.
    expect(new Set([missing, wrong, basic, unknown, malformed].map((r) => r.body.error.message)).size).toBe(1);
  });

  it('issues cisec_ secrets, unlike the outbound signing secrets (whsec_); a whsec_ secret issued before keeps working', async () => {
    const b = await webhookBusiness(server);
    expect(b.secret).toMatch(/^cisec_[A-Za-z0-9_-]{40,}$/);
    // A secret from before the prefix changed: only its hash is stored, and it is still the business's secret.
    const old = generateSecret('whsec_');
    await server.orm.em.getConnection().execute('update custom_integration set secret_hash = ? where business_id = ?', [hashSecret(old), b.businessId]);
    expect((await b.post(minimal(), { secret: old })).status).toBe(200);
    expect401(await b.post(minimal()));
  });

  it('refuses the secret of another business', async () => {
    const other = await webhookBusiness(server);
    expect401(await postWebhook(server, shop.businessId, minimal(), { secret: other.secret }));
  });

  it('a rotated secret stops at once; a disconnected integration refuses every secret', async () => {
    const b = await webhookBusiness(server);
    expect((await b.post(minimal())).status).toBe(200);
    const { secret: rotated } = await connectCustomIntegration(server.orm.em.fork(), b.businessId);
    expect401(await b.post(minimal()));
    expect((await b.post(minimal(), { secret: rotated })).status).toBe(200);
    await disconnectCustomIntegration(server.orm.em.fork(), b.businessId);
    expect401(await b.post(minimal(), { secret: rotated }));
  });

  it('401 comes before validation: an invalid body without a secret stores nothing and says 401', async () => {
    expect401(await shop.post({ nonsense: true }, { secret: null }));
  });
});

describe('validation (400 validation_failed, a detail per field)', () => {
  it('names every missing required field at once', async () => {
    const res = await shop.post({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(details(res.body).sort()).toEqual(['currency', 'externalOrderId', 'metadata', 'total']);
  });

  it('refuses an unrecognised currency and accepts any case of a real one', async () => {
    const bad = await shop.post(minimal({ currency: 'XYZ' }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'currency', message: expect.stringContaining('ISO 4217') }]);
    const lower = await shop.post(minimal({ currency: 'usd' }));
    expect(lower.status).toBe(200);
    expect(lower.body.data.currency).toBe('USD');
  });

  it('metadata: required, an object, at least one entry, string values only', async () => {
    for (const metadata of [{}, [], 'x', { a: 1 }, { a: 'ok', b: null }, { a: { nested: 'x' } }]) {
      const res = await shop.post(minimal({ metadata }));
      expect(res.status).toBe(400);
      expect(details(res.body).every((f: string) => f.startsWith('metadata'))).toBe(true);
    }
  });

  it('metadata is stored verbatim', async () => {
    const metadata = { 'pos.version': '  3.1 ', type: 'Takeaway', empty: '', 'ünïcode ключ': 'значение 🍔' };
    const res = await shop.post(minimal({ metadata }));
    expect(res.status).toBe(200);
    expect(res.body.data.metadata).toEqual(metadata);
    const [row] = await rows(server, 'select metadata from customer_order where id = ?', [res.body.data.id]);
    expect(row.metadata).toEqual(metadata);
  });

  it('checks the type of every optional field', async () => {
    const res = await shop.post(
      minimal({
        externalBrandId: 1,
        externalLocationId: {},
        customerName: [],
        customerEmail: 5,
        customerPhoneNumber: true,
        subtotal: {},
        deliveryCharge: [],
        channel: 7,
        payment: 'yes',
        items: {},
      }),
    );
    expect(res.status).toBe(400);
    expect(details(res.body).sort()).toEqual(
      [
        'channel',
        'customerEmail',
        'customerName',
        'customerPhoneNumber',
        'deliveryCharge',
        'externalBrandId',
        'externalLocationId',
        'items',
        'payment',
        'subtotal',
      ].sort(),
    );
  });

  it('items must be an array of objects with typed fields', async () => {
    const res = await shop.post(
      minimal({
        items: [
          1,
          'x',
          null,
          { name: 5, itemId: [], quantity: 1.5, unitPrice: 'abc', totalPrice: {}, salesTaxPercent: 'x', salesTaxAmount: true, itemComment: 3 },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(details(res.body)).toEqual([
      'items[0]',
      'items[1]',
      'items[2]',
      'items[3].itemId',
      'items[3].name',
      'items[3].quantity',
      'items[3].salesTaxPercent',
      'items[3].unitPrice',
      'items[3].totalPrice',
      'items[3].salesTaxAmount',
      'items[3].itemComment',
    ]);
  });

  it('a money value with no digits is a 400 naming the field', async () => {
    const res = await shop.post(minimal({ total: 'Rs.', subtotal: 'free', deliveryCharge: '' }));
    expect(res.status).toBe(400);
    expect(details(res.body).sort()).toEqual(['deliveryCharge', 'subtotal', 'total']);
    expect(res.body.error.message).toMatch(/total: 'Rs\.' holds no digits/);
  });

  it('the body must be a JSON object', async () => {
    const res = await shop.post([minimal()]);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('a refused body stores nothing', async () => {
    const id = uniqueId();
    await shop.post(minimal({ externalOrderId: id, currency: 'XYZ' }));
    expect(await rows(server, 'select id from customer_order where external_order_id = ?', [id])).toEqual([]);
  });
});

describe('transport errors', () => {
  it('415 for non-JSON, 400 for malformed JSON, 413 over 1 MiB', async () => {
    const text = await shop.post(null, { raw: 'externalOrderId=1', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const form = await shop.post(null, { raw: 'externalOrderId=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    const malformed = await shop.post(null, { raw: '{"externalOrderId": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('bad_request');
    const big = await shop.post(minimal({ metadata: { pad: 'x'.repeat(1024 * 1024) } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });
});

describe('money, channel, e-mail, phone', () => {
  it('"Rs. 1,250.00" is 1250; other symbols and separators are removed; numbers are accepted', async () => {
    const res = await shop.post(minimal({ total: 'Rs. 1,250.00', subtotal: '$1,100.50', deliveryCharge: '149.5 PKR' }));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expect.objectContaining({ total: 1250, subtotal: 1100.5, deliveryCharge: 149.5 }));
    const [row] = await rows(server, 'select total::text, subtotal::text, delivery_charge::text from customer_order where id = ?', [res.body.data.id]);
    expect(row).toEqual({ total: '1250.0000', subtotal: '1100.5000', delivery_charge: '149.5000' });
    const numeric = await shop.post(minimal({ total: 99.99 }));
    expect(numeric.body.data.total).toBe(99.99);
  });

  it('item prices accept numbers or money strings', async () => {
    const res = await shop.post(
      minimal({ items: [{ name: 'Karahi', quantity: 1, unitPrice: 'Rs. 1,250.00', totalPrice: 1250, salesTaxPercent: 16, salesTaxAmount: '200' }] }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.items[0]).toEqual(
      expect.objectContaining({ name: 'Karahi', quantity: 1, unitPrice: 1250, totalPrice: 1250, salesTaxPercent: 16, salesTaxAmount: 200 }),
    );
  });

  it.each([
    ['WEBSITE', 'WEBSITE'],
    ['website', 'WEBSITE'],
    ['Android', 'ANDROID'],
    ['ios', 'IOS'],
    ['call-in', 'CALL-IN'],
    ['Call In', 'CALL-IN'],
    ['call_in', 'CALL-IN'],
    ['CALL IN', 'CALL-IN'],
    ['qr', 'QR'],
    ['FoodPanda', 'FOODPANDA'],
    ['golootlo', 'GOLOOTLO'],
    ['Uber Eats', 'OTHER'],
    ['takeaway', 'OTHER'],
  ])('channel %j is %s', async (channel, expected) => {
    const res = await shop.post(minimal({ channel }));
    expect(res.status).toBe(200);
    expect(res.body.data.channel).toBe(expected);
  });

  it('an omitted channel stays unset', async () => {
    const res = await shop.post(minimal());
    expect(res.body.data.channel).toBeNull();
  });

  it('e-mail is trimmed and lower-cased; an invalid one is dropped, never stored as given', async () => {
    const good = await shop.post(minimal({ customerEmail: '  Ayesha.Khan@Example.COM ' }));
    expect(good.body.data.customerEmail).toBe('ayesha.khan@example.com');
    const bad = await shop.post(minimal({ customerEmail: 'not an email' }));
    expect(bad.status).toBe(200);
    expect(bad.body.data.customerEmail).toBeNull();
  });

  it("phone goes to E.164, read in the business's country; an invalid one is dropped", async () => {
    const local = await shop.post(minimal({ customerPhoneNumber: '0300 1234567' })); // business in PK
    expect(local.body.data.customerPhoneNumber).toBe('+923001234567');
    const international = await shop.post(minimal({ customerPhoneNumber: '+44 20 7946 0958' }));
    expect(international.body.data.customerPhoneNumber).toBe('+442079460958');
    const invalid = await shop.post(minimal({ customerPhoneNumber: '12' }));
    expect(invalid.status).toBe(200);
    expect(invalid.body.data.customerPhoneNumber).toBeNull();
    const gb = await webhookBusiness(server, { country: 'GB' });
    const gbLocal = await gb.post(minimal({ customerPhoneNumber: '020 7946 0958' }));
    expect(gbLocal.body.data.customerPhoneNumber).toBe('+442079460958');
  });
});

describe('status', () => {
  it('payment true gives ACCEPTED; false or omitted PENDING', async () => {
    expect((await shop.post(minimal({ payment: true }))).body.data.status).toBe('ACCEPTED');
    expect((await shop.post(minimal({ payment: false }))).body.data.status).toBe('PENDING');
    expect((await shop.post(minimal())).body.data.status).toBe('PENDING');
  });

  it('a later request moves PENDING to ACCEPTED; nothing moves an order out of ACCEPTED', async () => {
    const body = minimal({ externalLocationId: 'loc-1' });
    const first = await shop.post(body);
    expect(first.body.data.status).toBe('PENDING');
    const again = await shop.post(body);
    expect(again.body.data.status).toBe('PENDING');
    const paid = await shop.post({ ...body, payment: true });
    expect(paid.body.data.status).toBe('ACCEPTED');
    expect(paid.body.data.updatedAt).toBeGreaterThanOrEqual(first.body.data.updatedAt);
    for (const payment of [false, undefined]) {
      const later = await shop.post({ ...body, payment });
      expect(later.body.data.status).toBe('ACCEPTED');
    }
    const [row] = await rows(server, 'select status from customer_order where id = ?', [first.body.data.id]);
    expect(row.status).toBe('ACCEPTED');
  });
});

describe('idempotency', () => {
  it('a repeat returns the same order, updates its status, and creates no duplicate', async () => {
    const body = minimal({ externalLocationId: 'branch-7', items: [{ name: 'Tea' }] });
    const first = await shop.post(body);
    const second = await shop.post({ ...body, payment: true, total: '999' });
    expect(second.status).toBe(200);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.total).toBe(100); // only the status moves
    expect(second.body.data.status).toBe('ACCEPTED');
    const found = await rows(server, 'select id from customer_order where business_id = ? and external_order_id = ?', [shop.businessId, body.externalOrderId]);
    expect(found).toHaveLength(1);
  });

  it('the same externalOrderId at another externalLocationId is another order', async () => {
    const externalOrderId = uniqueId();
    const a = await shop.post(minimal({ externalOrderId, externalLocationId: 'A' }));
    const b = await shop.post(minimal({ externalOrderId, externalLocationId: 'B' }));
    const none = await shop.post(minimal({ externalOrderId }));
    const noneAgain = await shop.post(minimal({ externalOrderId }));
    expect(new Set([a.body.data.id, b.body.data.id, none.body.data.id]).size).toBe(3);
    expect(noneAgain.body.data.id).toBe(none.body.data.id); // externalOrderId alone is supported
    expect(none.body.data.externalLocationId).toBeNull();
  });

  it('the same externalOrderId at another business is another order', async () => {
    const other = await webhookBusiness(server);
    const body = minimal();
    const mine = await shop.post(body);
    const theirs = await other.post(body);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(theirs.body.data.business).toBe(other.businessId);
  });

  it('line items are written only when the order is created', async () => {
    const body = minimal({ items: [{ name: 'Samosa', quantity: 2 }] });
    const first = await shop.post(body);
    const second = await shop.post({ ...body, items: [{ name: 'Pakora', quantity: 9 }, { name: 'Lassi' }] });
    expect(second.body.data.items).toEqual(first.body.data.items);
    const lines = await rows(server, 'select name, quantity from order_item where order_id = ?', [first.body.data.id]);
    expect(lines).toEqual([{ name: 'Samosa', quantity: 2 }]);
    const menu = await rows(server, "select name from menu_item where business_id = ? and lower(name) in ('pakora', 'lassi')", [shop.businessId]);
    expect(menu).toEqual([]);
  });
});

describe('response', () => {
  it('200 {data: Order with items, url} for creation and update alike', async () => {
    const body = minimal({
      externalLocationId: 'DHA-2',
      externalBrandId: 'brand-1',
      customerName: 'Ayesha Khan',
      channel: 'foodpanda',
      items: [{ itemId: 'SKU-1', name: 'Zinger Burger', quantity: 2, unitPrice: '450', totalPrice: '900', itemComment: 'no mayo' }],
    });
    const created = await shop.post(body);
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect(created.body).toEqual({
      url: `/v2/businesses/${shop.businessId}/orders/${id}`,
      data: {
        id: expect.stringMatching(/^ord_[0-9A-Z]{26}$/),
        object: 'order',
        business: shop.businessId,
        externalOrderId: body.externalOrderId,
        externalLocationId: 'DHA-2',
        externalBrandId: 'brand-1',
        source: 'custom',
        channel: 'FOODPANDA',
        status: 'PENDING',
        currency: 'PKR',
        subtotal: null,
        deliveryCharge: null,
        total: 100,
        customerName: 'Ayesha Khan',
        customerEmail: null,
        customerPhoneNumber: null,
        metadata: { source: 'test' },
        staff: null,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        items: [
          {
            id: expect.stringMatching(/^oli_/),
            object: 'orderitem',
            business: shop.businessId,
            position: 0,
            itemId: 'SKU-1',
            name: 'Zinger Burger',
            quantity: 2,
            unitPrice: 450,
            totalPrice: 900,
            salesTaxPercent: null,
            salesTaxAmount: null,
            itemComment: 'no mayo',
            menuItem: expect.stringMatching(/^mi_/),
          },
        ],
        submissions: [],
      },
    });
    const updated = await shop.post({ ...body, payment: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ url: created.body.url, data: { ...created.body.data, status: 'ACCEPTED', updatedAt: expect.any(Number) } });
  });

  it('the answer matches what the GraphQL order API shows', async () => {
    const { createTenant } = await import('../helpers/auth.js');
    const tenant = await createTenant(server);
    const { secret } = await connectCustomIntegration(server.orm.em.fork(), tenant.businessId);
    const res = await postWebhook(server, tenant.businessId, minimal({ items: [{ name: 'Chai', quantity: 1, unitPrice: 80 }] }), { secret });
    const { body } = await server.graphql(
      'query($b: ID!, $id: ID!) { order(business: $b, id: $id) { id object externalOrderId status total currency metadata createdAt updatedAt items { id name quantity unitPrice } } }',
      { b: tenant.businessId, id: res.body.data.id },
      tenant.headers,
    );
    const d = res.body.data;
    expect(body.data.order).toEqual({
      id: d.id,
      object: 'order',
      externalOrderId: d.externalOrderId,
      status: d.status,
      total: d.total,
      currency: d.currency,
      metadata: d.metadata,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
      items: [{ id: d.items[0].id, name: 'Chai', quantity: 1, unitPrice: 80 }],
    });
  });
});

describe('items and the menu', () => {
  it('a line with neither name nor itemId is ignored; one with either is stored', async () => {
    const res = await shop.post(minimal({ items: [{ quantity: 3 }, { name: 'Naan' }, { itemId: 'SKU-ONLY-1' }, { name: '  ', itemId: '' }] }));
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((i: any) => [i.position, i.name, i.itemId])).toEqual([
      [0, 'Naan', null],
      [1, null, 'SKU-ONLY-1'],
    ]);
  });

  it('lines match the menu by name, case-insensitively and trimmed; a missing item is created once', async () => {
    const name = `Biryani ${uniqueId()}`;
    const a = await shop.post(minimal({ items: [{ name }] }));
    const b = await shop.post(minimal({ items: [{ name: `  ${name.toUpperCase()}  ` }] }));
    const c = await shop.post(minimal({ items: [{ name: name.toLowerCase() }, { name }] }));
    const ids = [a, b, c].flatMap((r) => r.body.data.items.map((i: any) => i.menuItem));
    expect(new Set(ids).size).toBe(1);
    const menu = await rows(server, 'select name from menu_item where business_id = ? and lower(name) = lower(?)', [shop.businessId, name]);
    expect(menu).toEqual([{ name }]); // the trimmed name as first received
    expect(b.body.data.items[0].name).toBe(name.toUpperCase()); // the line keeps what was sent (trimmed)
  });

  it('the itemId is kept on the line and as the menu item reference; a changed itemId updates it, never duplicates', async () => {
    const name = `Nihari ${uniqueId()}`;
    const first = await shop.post(minimal({ items: [{ name, itemId: 'N-1' }] }));
    const menuId = first.body.data.items[0].menuItem;
    expect(await rows(server, 'select external_item_id from menu_item where id = ?', [menuId])).toEqual([{ external_item_id: 'N-1' }]);
    const second = await shop.post(minimal({ items: [{ name: name.toLowerCase(), itemId: 'N-2' }] }));
    expect(second.body.data.items[0]).toEqual(expect.objectContaining({ itemId: 'N-2', menuItem: menuId }));
    expect(await rows(server, 'select id, external_item_id from menu_item where business_id = ? and lower(name) = lower(?)', [shop.businessId, name])).toEqual([
      { id: menuId, external_item_id: 'N-2' },
    ]);
    // A name-only line keeps the reference.
    await shop.post(minimal({ items: [{ name }] }));
    expect(await rows(server, 'select external_item_id from menu_item where id = ?', [menuId])).toEqual([{ external_item_id: 'N-2' }]);
    // A line with only the itemId matches the entry holding that reference.
    const byRef = await shop.post(minimal({ items: [{ itemId: 'N-2', quantity: 1 }] }));
    expect(byRef.body.data.items[0]).toEqual(expect.objectContaining({ itemId: 'N-2', name: null, menuItem: menuId }));
    // An unknown itemId alone is stored without a menu item (nothing to name it by).
    const unknown = await shop.post(minimal({ items: [{ itemId: `X-${uniqueId()}` }] }));
    expect(unknown.body.data.items[0].menuItem).toBeNull();
  });
});

describe('events', () => {
  it('order.created with the order, then order.updated on PENDING -> ACCEPTED, none for an unchanged repeat', async () => {
    const body = minimal();
    const created = await shop.post(body);
    await shop.post(body); // unchanged
    const accepted = await shop.post({ ...body, payment: true });
    await shop.post({ ...body, payment: true }); // unchanged
    const events = await rows(server, "select type, data from event where business_id = ? and data->'object'->>'id' = ? order by created_at, id", [
      shop.businessId,
      created.body.data.id,
    ]);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.updated']);
    const { items: _a, submissions: _s, ...createdOrder } = created.body.data;
    const { items: _b, submissions: _t, ...acceptedOrder } = accepted.body.data;
    expect(events[0].data).toEqual({ object: createdOrder });
    expect(events[1].data).toEqual({ object: acceptedOrder });
  });
});
