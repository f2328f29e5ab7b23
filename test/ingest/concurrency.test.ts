import { minimal, rows, uniqueId, useWebhookServer } from './ingest-helpers.js';

/** Concurrency over real HTTP and real PostgreSQL: the database's unique indexes and ON CONFLICT, no in-process locks. */
const fx = useWebhookServer();

it('the same new order sent 100 times at once: one order, 100 answers with its id, no 5xx', async () => {
  const body = minimal({ externalLocationId: 'loc-race', items: [{ name: `Race Item ${uniqueId()}`, quantity: 1 }, { name: 'Race Tea' }] });
  const answers = await Promise.all(Array.from({ length: 100 }, () => fx.shop.post(body)));
  expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
  const ids = new Set(answers.map((a) => a.body.data.id));
  expect(ids.size).toBe(1);
  const orders = await rows(fx.server, 'select id from customer_order where business_id = ? and external_order_id = ?', [
    fx.shop.businessId,
    body.externalOrderId,
  ]);
  expect(orders).toHaveLength(1);
  const lines = await rows(fx.server, 'select count(*)::int as n from order_item where order_id = ?', [orders[0].id]);
  expect(lines[0].n).toBe(2);
  // Every answer shows the lines, including those that lost the race and read the winner's order.
  for (const a of answers) expect(a.body.data.items).toHaveLength(2);
  const events = await rows(fx.server, "select type from event where data->'object'->>'id' = ?", [orders[0].id]);
  expect(events).toEqual([{ type: 'order.created' }]);
});

it('payment: true racing payment: false for a new order ends ACCEPTED', async () => {
  for (let round = 0; round < 10; round++) {
    const body = minimal();
    const answers = await Promise.all([
      fx.shop.post({ ...body, payment: false }),
      fx.shop.post({ ...body, payment: true }),
      fx.shop.post({ ...body, payment: false }),
      fx.shop.post(body),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers[1].body.data.status).toBe('ACCEPTED');
    const found = await rows(fx.server, 'select status from customer_order where business_id = ? and external_order_id = ?', [
      fx.shop.businessId,
      body.externalOrderId,
    ]);
    expect(found).toEqual([{ status: 'ACCEPTED' }]);
  }
});

it('different orders sharing a new item name at once produce one menu item, and every line links to it', async () => {
  const name = `Shared ${uniqueId()}`;
  const other = `Other ${uniqueId()}`;
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      // Half list the names in one order, half in the other: no deadlock either way.
      fx.shop.post(
        minimal({ items: i % 2 ? [{ name }, { name: other }] : [{ name: other.toUpperCase() }, { name: ` ${name.toLowerCase()} `, itemId: `S-${i}` }] }),
      ),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
  const menu = await rows(fx.server, 'select id, lower(name) as key from menu_item where business_id = ? and lower(name) in (lower(?), lower(?))', [
    fx.shop.businessId,
    name,
    other,
  ]);
  expect(menu).toHaveLength(2);
  const byKey = new Map(menu.map((m) => [m.key, m.id]));
  for (const a of answers) {
    for (const item of a.body.data.items) expect(item.menuItem).toBe(byKey.get(item.name.trim().toLowerCase()));
  }
  const unlinked = await rows(fx.server, 'select count(*)::int as n from order_item where business_id = ? and menu_item_id is null and name is not null', [
    fx.shop.businessId,
  ]);
  expect(unlinked[0].n).toBe(0);
});
