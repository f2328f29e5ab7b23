import { useTestServer, type TestServer } from '../helpers/server.js';
import type { OrderIngested } from '../../src/ingest/feedback-flows.js';
import { minimal, rows, webhookBusiness, type WebhookBusiness } from './ingest-helpers.js';

/** The extension point where configured feedback flows plug in: run after the commit, never failing the request. */
let server: TestServer;
let shop: WebhookBusiness;
useTestServer(async (s) => { server = s; shop = await webhookBusiness(s); });

it('runs registered hooks after the commit with the order, for creations and repeats', async () => {
  const seen: { event: OrderIngested; committed: boolean }[] = [];
  let done!: () => void;
  const twoCalls = new Promise<void>((resolve) => (done = resolve));
  const remove = server.app.orderIngested.add(async (event) => {
    // The order is already committed: another connection sees it.
    const found = await rows(server, 'select status from customer_order where id = ?', [event.order.id]);
    seen.push({ event, committed: found.length === 1 && found[0].status === event.order.status });
    if (seen.length === 2) done();
  });
  try {
    const body = minimal({ items: [{ name: 'Flow Tea' }] });
    const created = await shop.post(body);
    const accepted = await shop.post({ ...body, payment: true });
    await twoCalls;
    expect(seen.map((s) => s.committed)).toEqual([true, true]);
    expect(seen[0].event).toEqual({ business: shop.businessId, order: created.body.data, created: true, changed: true });
    expect(seen[1].event).toEqual({ business: shop.businessId, order: accepted.body.data, created: false, changed: true });
  } finally {
    remove();
  }
});

it('a failing or slow hook never fails nor delays the request', async () => {
  let release!: () => void;
  const slow = new Promise<void>((resolve) => (release = resolve));
  const removeFailing = server.app.orderIngested.add(() => {
    throw new Error('flow exploded');
  });
  const removeRejecting = server.app.orderIngested.add(async () => {
    throw new Error('flow rejected');
  });
  const removeSlow = server.app.orderIngested.add(() => slow);
  try {
    const res = await shop.post(minimal());
    expect(res.status).toBe(200);
    const stored = await rows(server, 'select id from customer_order where id = ?', [res.body.data.id]);
    expect(stored).toHaveLength(1);
  } finally {
    release();
    removeFailing();
    removeRejecting();
    removeSlow();
  }
});

it('hooks are not run for refused requests', async () => {
  const calls: unknown[] = [];
  const remove = server.app.orderIngested.add((e) => void calls.push(e));
  try {
    await shop.post({});
    await shop.post(minimal(), { secret: 'wrong' });
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([]);
  } finally {
    remove();
  }
});
