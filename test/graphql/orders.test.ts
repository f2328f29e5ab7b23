import type { TestServer } from '../helpers/server.js';
import { sleep, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));
beforeAll(async () => {
  await server.orm.em.fork().getConnection().execute(`update business set country = 'PK' where id = ?`, [busA]);
});

const ORDER = `id object source channel status currency subtotal deliveryCharge total customerName customerEmail customerPhoneNumber
  metadata externalOrderId externalLocationId externalBrandId createdAt updatedAt business { id }
  items { id object position itemId name quantity unitPrice totalPrice salesTaxPercent salesTaxAmount itemComment menuItem { id name itemId } }`;
const create = (input: object, c = a, bus = busA) =>
  c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { ${ORDER} } }`, { b: bus, i: input }).then((d) => d.createOrder);
const createErr = (input: object) => a.error(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, { b: busA, i: input });
const list = (vars: object) =>
  a
    .data(
      `query($b: ID!, $w: OrderWhere, $o: [OrderOrderBy!], $p: Int, $s: Int) { orders(business: $b, where: $w, orderBy: $o, page: $p, pageSize: $s) { data { id externalOrderId total status } total hasMore page pageSize } }`,
      { b: busA, ...vars },
    )
    .then((d) => d.orders);

describe('orders', () => {
  let first: any;

  it('creates an order through the shared normalisation', async () => {
    first = await create({
      externalOrderId: 'A-1',
      externalLocationId: 'LHR-01',
      externalBrandId: 'brand',
      total: 'Rs. 1,250.00',
      subtotal: '1,100',
      deliveryCharge: 150,
      currency: 'pkr',
      channel: 'call in',
      customerName: ' Ali ',
      customerEmail: ' Ali@Example.COM ',
      customerPhoneNumber: '0300 1234567',
      metadata: { fulfilment: 'delivery' },
      items: [
        {
          itemId: 'P1',
          name: 'Zinger Burger',
          quantity: 2,
          unitPrice: '500',
          totalPrice: 'Rs. 1,000',
          salesTaxPercent: 16,
          salesTaxAmount: 160,
          itemComment: 'no mayo',
        },
        { quantity: 1 },
        { name: 'zinger burger ' },
        { itemId: 'P9' },
      ],
    });
    expect(first).toMatchObject({
      object: 'order',
      source: 'api',
      channel: 'CALL-IN',
      status: 'PENDING',
      currency: 'PKR',
      total: 1250,
      subtotal: 1100,
      deliveryCharge: 150,
      customerName: 'Ali',
      customerEmail: 'ali@example.com',
      customerPhoneNumber: '+923001234567',
      metadata: { fulfilment: 'delivery' },
      externalLocationId: 'LHR-01',
      business: { id: busA },
    });
    expect(first.id).toMatch(/^ord_/);
    expect(first.items.map((i: any) => [i.position, i.name, i.itemId])).toEqual([
      [0, 'Zinger Burger', 'P1'],
      [1, 'zinger burger', null],
      [2, null, 'P9'],
    ]);
    expect(first.items[0]).toMatchObject({
      object: 'orderitem',
      quantity: 2,
      unitPrice: 500,
      totalPrice: 1000,
      salesTaxPercent: 16,
      salesTaxAmount: 160,
      itemComment: 'no mayo',
    });
    // Both spellings of the name share one menu entry, which keeps the itemId; an itemId-only line matches it by reference.
    expect(first.items[0].menuItem).toEqual({ id: expect.stringMatching(/^mi_/), name: 'Zinger Burger', itemId: 'P1' });
    expect(first.items[1].menuItem.id).toBe(first.items[0].menuItem.id);
    expect(first.items[2].menuItem).toBeNull();
    const ev = await server.orm.em
      .fork()
      .getConnection()
      .execute(`select data from event where type = 'order.created' and data->'object'->>'id' = ?`, [first.id]);
    expect(ev[0].data.object).toMatchObject({ total: 1250, status: 'PENDING', createdAt: first.createdAt });
  });

  it('drops an invalid e-mail or phone rather than storing it', async () => {
    const o = await create({ externalOrderId: 'A-2', total: 10, currency: 'USD', customerEmail: 'nope', customerPhoneNumber: '12', channel: 'Uber' });
    expect(o).toMatchObject({ customerEmail: null, customerPhoneNumber: null, channel: 'OTHER', externalLocationId: null, metadata: {}, items: [] });
  });

  it('validates money, currency and required fields, naming them', async () => {
    const err = await createErr({
      externalOrderId: '',
      total: 'abc',
      currency: 'XYZ',
      subtotal: '-3',
      metadata: { a: 1 },
      items: [{ name: 'x', unitPrice: 'free' }],
    });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details!.map((d) => d.field).sort()).toEqual(['currency', 'externalOrderId', 'items[0].unitPrice', 'metadata.a', 'subtotal', 'total']);
    expect(err.details!.find((d) => d.field === 'currency')!.message).toBe("'XYZ' is not an ISO 4217 code");
  });

  it('refuses line texts longer than their columns, naming each (found by the REST fuzz: it was a 500)', async () => {
    const before = (await list({})).total;
    const err = await createErr({
      externalOrderId: 'LONG-1',
      total: 10,
      currency: 'PKR',
      items: [{ name: 'Tea', itemId: 'x'.repeat(201) }, { name: 'y'.repeat(301) }, { name: 'Cake', itemComment: 'z'.repeat(10_001) }],
    });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details).toEqual([
      { field: 'items[0].itemId', message: 'must be at most 200 characters' },
      { field: 'items[1].name', message: 'must be at most 300 characters' },
      { field: 'items[2].itemComment', message: 'must be at most 10000 characters' },
    ]);
    expect((await list({})).total).toBe(before);
  });

  it('refuses a second order with the same external ids: CONFLICT; another location is another order', async () => {
    const err = await createErr({ externalOrderId: 'A-1', externalLocationId: 'LHR-01', total: 1, currency: 'PKR' });
    expect(err.code).toBe('CONFLICT');
    const other = await create({ externalOrderId: 'A-1', externalLocationId: 'ISB-02', total: 1, currency: 'PKR' });
    expect(other.id).not.toBe(first.id);
  });

  it('updates: PENDING -> ACCEPTED, never back; other fields normalised', async () => {
    await sleep(2);
    const up = await a.data(
      `mutation($b: ID!, $id: ID!) { updateOrder(business: $b, id: $id, input: {status: ACCEPTED, total: "$99.5", channel: "food_panda", customerEmail: "X@Y.io"}) { ${ORDER} } }`,
      { b: busA, id: first.id },
    );
    expect(up.updateOrder).toMatchObject({ status: 'ACCEPTED', total: 99.5, channel: 'FOODPANDA', customerEmail: 'x@y.io', items: first.items });
    const back = await a.error(`mutation($b: ID!, $id: ID!) { updateOrder(business: $b, id: $id, input: {status: PENDING}) { id } }`, {
      b: busA,
      id: first.id,
    });
    expect(back.code).toBe('CONFLICT');
    const bad = await a.error(`mutation($b: ID!, $id: ID!) { updateOrder(business: $b, id: $id, input: {currency: "ABC"}) { id } }`, { b: busA, id: first.id });
    expect([bad.code, bad.details![0].field]).toEqual(['BAD_USER_INPUT', 'currency']);
    const ev = await server.orm.em.fork().getConnection().execute(`select type, data from event where data->'object'->>'id' = ? order by id`, [first.id]);
    expect(ev.map((e: any) => e.type)).toEqual(['order.created', 'order.updated']);
    // The answer and the event show the time stored, not one taken before the ORM stamped its own at flush.
    const stored = (await a.data(`query($b: ID!, $id: ID!) { order(business: $b, id: $id) { updatedAt } }`, { b: busA, id: first.id })).order.updatedAt;
    expect([up.updateOrder.updatedAt, ev[1].data.object.updatedAt]).toEqual([stored, stored]);
  });

  it('lists with filters on status, channel, source, external ids and total, sorted and paged', async () => {
    const all = await list({});
    expect(all.total).toBe(3);
    expect((await list({ w: { status: { eq: 'ACCEPTED' } } })).data.map((o: any) => o.id)).toEqual([first.id]);
    expect((await list({ w: { externalLocationId: { eq: 'ISB-02' } } })).total).toBe(1);
    expect((await list({ w: { externalOrderId: { eq: 'A-1' } } })).total).toBe(2);
    expect((await list({ w: { source: { eq: 'api' }, channel: { eq: 'OTHER' } } })).total).toBe(1);
    expect((await list({ w: { source: { eq: 'api' }, channel: { eq: 'FOODPANDA' } } })).total).toBe(1);
    expect((await list({ w: { total: { gt: 5, lte: 99.5 } } })).data.map((o: any) => o.total).sort()).toEqual([10, 99.5]);
    expect((await list({ o: [{ field: 'total', order: 'asc' }] })).data.map((o: any) => o.total)).toEqual([1, 10, 99.5]);
    expect(await list({ s: 1, p: 1, o: [{ field: 'total', order: 'desc' }] })).toMatchObject({ data: [{ total: 10 }], hasMore: true, total: 3 });
  });

  it('menu items: list and get; read-only', async () => {
    const { menuItems } = await a.data(
      `query($b: ID!) { menuItems(business: $b, where: {name: {contains: "zinger"}}) { total data { id object name itemId business { id } } } }`,
      { b: busA },
    );
    expect(menuItems.total).toBe(1);
    expect(menuItems.data[0]).toMatchObject({ object: 'menuitem', name: 'Zinger Burger', itemId: 'P1', business: { id: busA } });
    const byRef = await a.data(`query($b: ID!) { menuItems(business: $b, where: {itemId: {eq: "P1"}}) { total } }`, { b: busA });
    expect(byRef.menuItems.total).toBe(1);
    const one = await a.data(`query($b: ID!, $id: ID!) { menuItem(business: $b, id: $id) { name } }`, { b: busA, id: menuItems.data[0].id });
    expect(one.menuItem.name).toBe('Zinger Burger');
    expect((await b.error(`query($b: ID!, $id: ID!) { menuItem(business: $b, id: $id) { name } }`, { b: busB, id: menuItems.data[0].id })).code).toBe(
      'NOT_FOUND',
    );
  });

  it("treats another business's order as NOT_FOUND", async () => {
    expect((await b.error(`query($b: ID!, $id: ID!) { order(business: $b, id: $id) { id } }`, { b: busB, id: first.id })).code).toBe('NOT_FOUND');
    expect(
      (await b.error(`mutation($b: ID!, $id: ID!) { updateOrder(business: $b, id: $id, input: {status: ACCEPTED}) { id } }`, { b: busB, id: first.id })).code,
    ).toBe('NOT_FOUND');
    expect((await b.data(`query($b: ID!) { orders(business: $b) { total } }`, { b: busB })).orders.total).toBe(0);
    const theirs = await create({ externalOrderId: 'A-1', externalLocationId: 'LHR-01', total: 1, currency: 'EUR' }, b, busB);
    expect(theirs.id).not.toBe(first.id); // the idempotency key is per business
  });
});
