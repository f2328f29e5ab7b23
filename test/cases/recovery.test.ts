import fc from 'fast-check';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { rest, expectError, qs } from '../rest/rest.helpers.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { countStatements } from '../helpers/sql-counter.js';
import { restBusiness } from './case.fixtures.js';

// Issue 35 items 5-7: offers redeemed by a later order, guests who came back, and the recovery figures.
let server: TestServer;
useTestServer((s) => (server = s));

/** A business with the custom order webhook, a 1-5 rating survey and a rule that opens a case at 2 or less. */
async function restaurant() {
  const { tenant, b, call, made } = await restBusiness(server, 'Karachi Kitchen');
  const secret = (await call('PUT', '/integrations/custom')).body.data.secret as string;
  const food = await made('/metrics', { name: 'Food' });
  const survey = await made('/surveys', { name: 'Visit', status: 'active' });
  const step = await made(`/surveys/${survey}/steps`, { type: 'metrics', metrics: { metrics: [food] } });
  await made('/alert-rules', { name: 'Low', when: { maxRating: 2 }, notify: [{ role: 'owner' }] });
  /** An order through the webhook, as an ordering system sends it. */
  const order = async (fields: Record<string, unknown> = {}) => {
    const answer = await postWebhook(server, tenant.businessId, { externalOrderId: uniqueId(), total: '2350', currency: 'PKR', metadata: { source: 'till' }, ...fields }, { secret });
    if (answer.status !== 200) throw new Error(`webhook: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data.id as string;
  };
  /** A guest's order and their low rating of it: the case it opens. */
  const unhappy = async (guest: Record<string, unknown> = { customerEmail: `guest-${uniqueId()}@example.com` }) => {
    const ordered = await order(guest);
    const answered = await call('POST', `/surveys/${survey}/submissions`, { answers: [{ step, ratings: { [food]: 1 } }], order: ordered });
    if (answered.status !== 201) throw new Error(`answer: ${answered.status} ${JSON.stringify(answered.body)}`);
    const submission = answered.body.data.id;
    return (await call('GET', `/cases${qs({ filters: { field: 'id', type: 'ne', value: 'x' } })}`)).body.data.find((c: { submission: string }) => c.submission === submission);
  };
  const getCase = async (id: string) => (await call('GET', `/cases/${id}`)).body.data;
  const events = async (type: string) => (await call('GET', `/events${qs({ filters: { field: 'type', type: 'eq', value: type } })}`)).body.data.map((e: { data: { object: object } }) => e.data.object);
  return { tenant, b, call, made, order, unhappy, getCase, events };
}

describe('offers', () => {
  it('are made with a fresh code and an expiry, listed per case, and refused with 400s naming the field', async () => {
    const r = await restaurant();
    const c = await r.unhappy();
    const made = await r.call('POST', `/cases/${c.id}/offers`, { description: 'A free kheer with your next order', expiresInDays: 14 });
    expect(made.status).toBe(201);
    const offer = made.body.data;
    expect(offer).toEqual({
      id: expect.stringMatching(/^off_/), object: 'offer', business: r.tenant.businessId, case: c.id,
      description: 'A free kheer with your next order',
      code: expect.stringMatching(/^[ABCDEFGHJKMNPQRSTWXYZ2-9]{10}$/),
      expiresAt: expect.any(Number), redeemedAt: null, redeemedOrder: null,
      createdAt: expect.any(Number), updatedAt: expect.any(Number),
    });
    expect(offer.expiresAt - offer.createdAt).toBe(14 * 86_400_000);
    expect((await r.call('GET', `/cases/${c.id}/offers`)).body.data).toEqual([offer]);
    expect(await r.events('offer.created')).toEqual([expect.objectContaining({ id: offer.id, code: offer.code })]);

    // send: true puts it in the guest's thread as a reply (the messages' own tests follow it to the mailbox).
    const sent = (await r.call('POST', `/cases/${c.id}/offers`, { description: 'Dessert on us', send: true })).body.data;
    const thread = (await r.call('GET', `/cases/${c.id}/messages`)).body.data;
    expect(thread).toEqual([expect.objectContaining({ direction: 'out', channel: 'email', body: expect.stringContaining(`Your code: ${sent.code}`) })]);
    expect(await r.getCase(c.id)).toMatchObject({ status: 'replied', firstReplyAt: expect.any(Number) });

    const refused = await r.call('POST', `/cases/${c.id}/offers`, { description: ' ', expiresInDays: 0 });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).toEqual(['description', 'expiresInDays']);
    const other: Tenant = await createTenant(server);
    expectError(await rest(server, 'POST', `/v2/businesses/${other.businessId}/cases/${c.id}/offers`, { tenant: other, body: { description: 'x' } }), 404, 'not_found');
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/cases/${c.id}/offers/${offer.id}`, { tenant: other }), 404, 'not_found');
  });

  it('a later webhook order carrying the code in any metadata value, in any case, redeems it exactly once and recovers the case', async () => {
    const r = await restaurant();
    const c = await r.unhappy();
    const offer = (await r.call('POST', `/cases/${c.id}/offers`, { description: 'Free dessert' })).body.data;
    // Two orders carrying the code at once (another guest's phone read it out twice): one redeems it.
    const [first, second] = await Promise.all([
      r.order({ metadata: { promo: offer.code.toLowerCase() } }),
      r.order({ metadata: { note: ` ${offer.code} ` } }),
    ]);
    const redeemed = (await r.call('GET', `/cases/${c.id}/offers/${offer.id}`)).body.data;
    expect([first, second]).toContain(redeemed.redeemedOrder);
    expect(redeemed.redeemedAt).toEqual(expect.any(Number));
    const recovered = await r.getCase(c.id);
    expect(recovered).toMatchObject({ status: 'recovered', recoveredAt: expect.any(Number), recoveredBy: { order: redeemed.redeemedOrder, offer: offer.id } });
    expect(await r.events('offer.redeemed')).toEqual([expect.objectContaining({ id: offer.id, redeemedOrder: redeemed.redeemedOrder })]);
    expect(await r.events('case.recovered')).toEqual([expect.objectContaining({ id: c.id, status: 'recovered', recoveredBy: { order: redeemed.redeemedOrder, offer: offer.id } })]);
    // A third order with the same code redeems nothing and changes nothing.
    await r.order({ metadata: { promo: offer.code } });
    expect((await r.call('GET', `/cases/${c.id}/offers/${offer.id}`)).body.data).toEqual(redeemed);
    expect(await r.events('offer.redeemed')).toHaveLength(1);
  });

  it('an expired offer, or another business\'s code, redeems nothing', async () => {
    const r = await restaurant();
    const c = await r.unhappy();
    const offer = (await r.call('POST', `/cases/${c.id}/offers`, { description: 'Free dessert' })).body.data;
    const elsewhere = await restaurant();
    await elsewhere.unhappy();
    await elsewhere.order({ metadata: { promo: offer.code } });
    await rows(server, `update offer set expires_at = now() - interval '1 second' where id = ?`, [offer.id]);
    await r.order({ metadata: { promo: offer.code } });
    expect((await r.call('GET', `/cases/${c.id}/offers/${offer.id}`)).body.data).toMatchObject({ redeemedAt: null, redeemedOrder: null });
    expect(await r.getCase(c.id)).toMatchObject({ status: 'open', recoveredBy: null });
  });
});

describe('a guest who came back', () => {
  it('recovers their case by ordering again within 60 days, by e-mail or phone; another guest, or after 60 days, recovers nothing', async () => {
    const r = await restaurant();
    const byEmail = await r.unhappy({ customerEmail: 'ayesha@example.com' });
    const byPhone = await r.unhappy({ customerPhoneNumber: '+923001112233' });
    const old = await r.unhappy({ customerEmail: 'bilal@example.com' });
    await rows(server, `update guest_case set opened_at = now() - interval '61 days' where id = ?`, [old.id]);
    await r.call('PATCH', `/cases/${byPhone.id}`, { status: 'resolved' });

    await r.order({ customerEmail: 'someone.else@example.com' });
    expect(await r.getCase(byEmail.id)).toMatchObject({ status: 'open' });
    const again = await r.order({ customerEmail: ' Ayesha@Example.com ' });
    expect(await r.getCase(byEmail.id)).toMatchObject({ status: 'recovered', recoveredBy: { order: again, offer: null } });
    // A resolved case is no longer waiting for the guest; the old one is past the window.
    await r.order({ customerPhoneNumber: '0300 1112233' });
    await r.order({ customerEmail: 'bilal@example.com' });
    expect(await r.getCase(byPhone.id)).toMatchObject({ status: 'resolved', recoveredBy: null });
    expect(await r.getCase(old.id)).toMatchObject({ status: 'open', recoveredBy: null });
    expect((await r.events('case.recovered')).map((c: { id: string }) => c.id)).toEqual([byEmail.id]);
  });

  it('costs an order no statement on cases or offers when nothing waits, one when something does', async () => {
    const r = await restaurant();
    const touching = (statements: string[]) => statements.filter((q) => /guest_case|"offer"|\boffer\b/.test(q));
    await r.order({ customerEmail: 'first@example.com' }); // the note of what waits is read here, then kept
    let counter = countStatements(server.orm);
    try {
      await r.order({ customerEmail: 'second@example.com' });
      expect(touching(counter.statements)).toEqual([]);
    } finally {
      counter.restore();
    }
    await r.unhappy();
    counter = countStatements(server.orm);
    try {
      await r.order({ customerEmail: 'third@example.com' });
      expect(touching(counter.statements)).toHaveLength(1);
    } finally {
      counter.restore();
    }
  });
});

describe('reply templates', () => {
  it('are saved, changed and deleted by the business, and are another business\'s 404', async () => {
    const r = await restaurant();
    const id = await r.made('/reply-templates', { name: 'Apology', body: 'We are so sorry. Please give us another chance.' });
    expect((await r.call('PATCH', `/reply-templates/${id}`, { body: 'We are truly sorry.' })).body.data).toMatchObject({ id, object: 'replytemplate', name: 'Apology', body: 'We are truly sorry.' });
    expectError(await r.call('POST', '/reply-templates', { name: '', body: 'x'.repeat(2001) }), 400, 'validation_failed');
    const other = await createTenant(server);
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/reply-templates/${id}`, { tenant: other }), 404, 'not_found');
    expect((await r.call('DELETE', `/reply-templates/${id}`)).status).toBe(204);
    expect((await r.call('GET', '/reply-templates')).body.data).toEqual([]);
  });
});

describe('recovery figures', () => {
  it('match a count from the raw case rows, for any mix of replies, resolutions and recoveries (property)', async () => {
    const r = await restaurant();
    const cases: Array<{ id: string }> = [];
    for (let i = 0; i < 12; i++) cases.push(await r.unhappy());
    const recoveringOrders = [await r.order({ total: '1000' }), await r.order({ total: '250.5', currency: 'PKR' }), await r.order({ total: '40', currency: 'USD' })];
    const HOUR = 3_600_000;
    const day = Date.UTC(2026, 9, 1);
    const shape = fc.array(
      fc.record({
        openedDay: fc.integer({ min: 0, max: 20 }),
        replyMinutes: fc.option(fc.integer({ min: 0, max: 3000 })),
        resolved: fc.boolean(),
        recoveredBy: fc.option(fc.integer({ min: 0, max: 2 })),
      }),
      { minLength: 12, maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(shape, fc.constantFrom('day', 'week', 'month', 'total'), async (states, interval) => {
        for (const [i, s] of states.entries()) {
          const opened = day + s.openedDay * 86_400_000 + 5 * HOUR;
          await rows(server, `update guest_case set opened_at = to_timestamp(?::float8 / 1000), first_reply_at = ${s.replyMinutes == null ? 'null' : `to_timestamp(?::float8 / 1000)`},
              resolved_at = ${s.resolved ? 'opened_at' : 'null'}, status = ?, recovered_order_id = ?, recovered_at = ${s.recoveredBy == null ? 'null' : 'now()'} where id = ?`,
            [opened, ...(s.replyMinutes == null ? [] : [opened + s.replyMinutes * 60_000]), s.recoveredBy == null ? (s.resolved ? 'resolved' : 'open') : 'recovered', s.recoveredBy == null ? null : recoveringOrders[s.recoveredBy], cases[i].id]);
        }
        const from = day;
        const to = day + 21 * 86_400_000;
        const answer = await r.call('GET', `/analytics/recovery?${new URLSearchParams({ from: String(from), to: String(to), interval })}`);
        expect(answer.status).toBe(200);
        const raw = await rows(server, `select g.*, extract(epoch from g.opened_at) * 1000 as opened_ms, extract(epoch from g.first_reply_at - g.opened_at) / 60 as reply_minutes, o.total, o.currency
            from guest_case g left join customer_order o on o.id = g.recovered_order_id where g.business_id = ?`, [r.tenant.businessId]);
        const bucketOf = (ms: number) => {
          const d = new Date(ms);
          if (interval === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
          if (interval === 'week') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
          if (interval === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
          return from;
        };
        const expected = new Map<number, any>();
        for (const g of raw) {
          const key = bucketOf(Number(g.opened_ms));
          const e = expected.get(key) ?? { period: key, opened: 0, replied: 0, repliedWithinHour: 0, minutes: [] as number[], resolved: 0, recovered: 0, revenue: new Map<string, number>(), orders: new Set<string>() };
          e.opened++;
          if (g.first_reply_at) {
            e.replied++;
            e.minutes.push(Number(g.reply_minutes));
            if (Number(g.reply_minutes) <= 60) e.repliedWithinHour++;
          }
          if (g.resolved_at) e.resolved++;
          if (g.status === 'recovered') {
            e.recovered++;
            // An order that brought back two cases of its guest is revenue once.
            if (!e.orders.has(g.recovered_order_id)) e.revenue.set(g.currency, (e.revenue.get(g.currency) ?? 0) + Number(g.total));
            e.orders.add(g.recovered_order_id);
          }
          expected.set(key, e);
        }
        const median = (xs: number[]) => {
          if (!xs.length) return null;
          const s = [...xs].sort((a, b) => a - b);
          return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        };
        const want = [...expected.values()].sort((a, b) => a.period - b.period).map((e) => ({
          period: e.period, location: null, opened: e.opened, replied: e.replied, repliedWithinHour: e.repliedWithinHour, medianFirstReplyMinutes: median(e.minutes),
          resolved: e.resolved, recovered: e.recovered, recoveryRate: e.recovered / e.opened,
          recoveredRevenue: [...e.revenue].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, amount]) => ({ currency, amount })),
        }));
        const got = answer.body.data.map((x: any) => ({ ...x, medianFirstReplyMinutes: x.medianFirstReplyMinutes == null ? null : Math.round(x.medianFirstReplyMinutes * 1e6) / 1e6 }));
        expect(got).toEqual(want.map((w) => ({ ...w, medianFirstReplyMinutes: w.medianFirstReplyMinutes == null ? null : Math.round(w.medianFirstReplyMinutes * 1e6) / 1e6 })));
      }),
      { seed: 20261127, numRuns: 15 },
    );
  });
});
