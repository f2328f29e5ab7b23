import { jest } from '@jest/globals';
import { freePort } from '../helpers/ports.js';
import { startService, waitForReady, type ServiceProcess } from '../helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startPgProxy, type PgProxy, type SentStatement } from '../helpers/pg-proxy.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { minimal, uniqueId } from './ingest-helpers.js';
import type { TestServer } from '../helpers/server.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';

/**
 * What an order costs PostgreSQL, read off the wire (a proxy records every statement the service sends): a new order
 * nothing follows is its one statement committed alone, with its lines, menu entries and event; an order a feedback
 * flow follows is written in a transaction with its feedback request; a repeat that accepts a stored order records
 * its order.updated event with the change.
 */
jest.setTimeout(120_000);

const PUBLIC_URL = 'http://localhost:4000';
/** The database, the proxy recording what the service sends it, the service, and the tenant whose orders it takes. */
let db: TestDatabase, proxy: PgProxy, service: ServiceProcess, tenant: Tenant, secret: string;

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startPgProxy(db.url);
  // No workers: nothing but the requests below talks to the database meanwhile.
  service = startService({ PUBLIC_URL, DATABASE_URL: proxy.url, PORT: String(await freePort()), WORKERS: '0' });
  await waitForReady(service);
  tenant = await createTenant({ orm: db.orm, config: { publicUrl: PUBLIC_URL } } as unknown as TestServer);
  ({ secret } = await connectCustomIntegration(db.orm.em.fork(), tenant.businessId));
});

afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill('SIGTERM');
  await service?.exited;
  await proxy?.close();
  await db?.drop();
});

/** Posts `body` to the custom webhook; answers the order and what the service sent PostgreSQL for it. */
async function post(body: Record<string, unknown>): Promise<{ order: any; sent: SentStatement[] }> {
  const from = proxy.statements.length;
  const res = await fetch(`${service.url}/webhooks/custom/${tenant.businessId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return { order: ((await res.json()) as any).data, sent: proxy.statements.slice(from) };
}

const rows = async (text: string, values: unknown[]) => (await db.orm.em.getConnection().execute(text, values)) as Array<Record<string, unknown>>;
const writes = (sent: SentStatement[]) => sent.filter((s) => /insert into "?customer_order/i.test(s.text));
const transactionStarts = (sent: SentStatement[]) => sent.filter((s) => /^\s*begin\b/i.test(s.text));

it('writes a new order nothing follows in one statement, alone: its lines, menu entries and event with it', async () => {
  const items = [
    { name: `Biryani ${uniqueId()}`, quantity: 2, unitPrice: '450' },
    { name: 'Raita', quantity: 1 },
  ];
  const { order, sent } = await post(minimal({ items }));
  expect(writes(sent).map((s) => s.inTransaction)).toEqual([false]);
  expect(transactionStarts(sent)).toEqual([]);
  expect(await rows('select name, quantity, menu_item_id is not null as linked from order_item where order_id = ? order by position', [order.id])).toEqual([
    { name: items[0].name, quantity: 2, linked: true },
    { name: 'Raita', quantity: 1, linked: true },
  ]);
  expect(await rows(`select type from event where business_id = ? and data->'object'->>'id' = ?`, [tenant.businessId, order.id])).toEqual([
    { type: 'order.created' },
  ]);
});

it('reads the secret once, not for every order; another process rotating it is heard, and the old secret stops', async () => {
  const accountReads = (sent: SentStatement[]) => sent.filter((s) => /from "?custom_integration/i.test(s.text));
  await post(minimal());
  const { sent } = await post(minimal());
  expect(writes(sent)).toHaveLength(1);
  expect(accountReads(sent)).toEqual([]);

  // This test's own process rotates it, as the admin CLI or another instance would: the service hears the notification.
  const old = secret;
  ({ secret } = await connectCustomIntegration(db.orm.em.fork(), tenant.businessId));
  const status = async (bearer: string) =>
    (
      await fetch(`${service.url}/webhooks/custom/${tenant.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify(minimal()),
      })
    ).status;
  const deadline = Date.now() + 5_000;
  while ((await status(old)) !== 401) {
    if (Date.now() > deadline) throw new Error('the old secret still works 5 s after its rotation');
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await status(secret)).toBe(200);
});

it('accepts a stored PENDING order on its repeat, with its order.updated event in the same transaction', async () => {
  const body = minimal({ payment: false });
  const { order } = await post(body);
  expect(order.status).toBe('PENDING');
  const repeat = await post({ ...body, payment: true });
  expect(repeat.order).toMatchObject({ id: order.id, status: 'ACCEPTED' });
  // The statement alone changed nothing (a repeat is never accepted there); the transaction did.
  expect(writes(repeat.sent).map((s) => s.inTransaction)).toEqual([false, true]);
  expect(
    await rows(`select type, data->'object'->>'status' as status from event where business_id = ? and data->'object'->>'id' = ? order by id`, [
      tenant.businessId,
      order.id,
    ]),
  ).toEqual([
    { type: 'order.created', status: 'PENDING' },
    { type: 'order.updated', status: 'ACCEPTED' },
  ]);
});

/** Posts every body at once; answers each one's status and body, and what the service sent PostgreSQL meanwhile. */
async function postAll(bodies: Array<Record<string, unknown>>): Promise<{ answers: Array<{ status: number; body: any }>; sent: SentStatement[] }> {
  const from = proxy.statements.length;
  const answers = await Promise.all(
    bodies.map(async (body) => {
      const res = await fetch(`${service.url}/webhooks/custom/${tenant.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    }),
  );
  return { answers, sent: proxy.statements.slice(from) };
}

it('writes new orders arriving together in fewer statements than orders, each with its own lines, menu entries and event', async () => {
  const shared = `Nihari ${uniqueId()}`;
  const naans = Array.from({ length: 30 }, (_, i) => `Naan ${i} ${uniqueId()}`);
  const bodies = naans.map((naan, i) =>
    minimal({
      items: [
        { name: shared, itemId: `SKU-${i}`, quantity: 1 },
        { name: naan, quantity: 2 },
      ],
    }),
  );
  // The same order twice in the burst: one order, both answered with it.
  const { answers, sent } = await postAll([...bodies, bodies[7]]);
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  expect(answers[30].body.data.id).toBe(answers[7].body.data.id);

  // Group commit: the orders that came while a statement was busy went together in the next one.
  const alone = writes(sent).filter((s) => !s.inTransaction);
  expect(alone.length).toBeGreaterThan(0);
  expect(alone.length).toBeLessThan(30);

  const ids = answers.slice(0, 30).map((a) => a.body.data.id as string);
  expect(new Set(ids).size).toBe(30);
  expect(await rows('select count(*)::int as n from customer_order where id in (?)', [ids])).toEqual([{ n: 30 }]);
  const menu = await rows('select id, external_item_id from menu_item where business_id = ? and lower(name) = lower(?)', [tenant.businessId, shared]);
  expect(menu).toHaveLength(1);
  expect(String(menu[0].external_item_id)).toMatch(/^SKU-\d+$/);
  for (const [i, answer] of answers.slice(0, 30).entries()) {
    // Each order answers its own lines, linked to the menu as stored.
    expect(answer.body.data.items.map((l: any) => l.name)).toEqual([shared, naans[i]]);
    expect(answer.body.data.items[0].menuItem).toBe(menu[0].id);
  }
  expect(await rows('select count(*)::int as n, count(menu_item_id)::int as linked from order_item where order_id in (?)', [ids])).toEqual([
    { n: 60, linked: 60 },
  ]);
  expect(
    await rows(
      `select count(*)::int as n, count(distinct data->'object'->>'id')::int as orders from event where business_id = ? and type = 'order.created' and data->'object'->>'id' in (?)`,
      [tenant.businessId, ids],
    ),
  ).toEqual([{ n: 30, orders: 30 }]);
});

it('an order the database refuses fails alone: the others of its batch are written', async () => {
  await rows(`alter table customer_order add constraint test_refused check (external_order_id <> 'refused-by-the-database')`, []);
  try {
    const bodies = Array.from({ length: 20 }, (_, i) => minimal(i === 11 ? { externalOrderId: 'refused-by-the-database' } : {}));
    const { answers } = await postAll(bodies);
    expect(answers[11].status).toBeGreaterThanOrEqual(400);
    expect(answers.filter((_, i) => i !== 11).map((a) => a.status)).toEqual(Array(19).fill(200));
    const stored = await rows('select external_order_id from customer_order where business_id = ? and external_order_id in (?)', [
      tenant.businessId,
      bodies.map((b) => b.externalOrderId),
    ]);
    expect(stored.map((r) => r.external_order_id).sort()).toEqual(
      bodies
        .filter((_, i) => i !== 11)
        .map((b) => b.externalOrderId)
        .sort(),
    );
  } finally {
    await rows('alter table customer_order drop constraint test_refused', []);
  }
});

it('writes an order a feedback flow follows in a transaction with its feedback request', async () => {
  const rest = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${service.url}/v2/businesses/${tenant.businessId}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...tenant.headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as any).data.id as string;
  };
  const survey = await rest('POST', '/surveys', { name: 'Visit', status: 'active' });
  await rest('POST', '/feedback-flows', { name: 'After every order', survey });

  const { order, sent } = await post(minimal({ customerEmail: 'guest@example.com' }));
  expect(writes(sent).map((s) => s.inTransaction)).toEqual([true]);
  expect(transactionStarts(sent)).toHaveLength(1);
  expect(await rows('select status from feedback_request where order_id = ?', [order.id])).toEqual([{ status: 'scheduled' }]);
});
