import fc from 'fast-check';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, issueToken, type Tenant } from '../helpers/auth.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { rest, expectError, qs } from '../rest/rest.helpers.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { countStatements } from '../helpers/sql-counter.js';
import { restBusiness, sleep } from './case.fixtures.js';

// Issue 35 items 5-7: offers redeemed by a later order, guests who came back, and the recovery figures.
let server: TestServer;
useTestServer((s) => (server = s));

/**
 * A business in Pakistan (phones without a country code are read there) with the custom order webhook, a 1-5 rating
 * survey and a rule that opens a case at 2 or less.
 */
async function restaurant() {
  const { tenant, b, call, made } = await restBusiness(server, 'Karachi Kitchen');
  await rows(server, `update business set country = 'PK' where id = ?`, [tenant.businessId]);
  const secret = (await call('PUT', '/integrations/custom')).body.data.secret as string;
  const food = await made('/metrics', { name: 'Food' });
  const survey = await made('/surveys', { name: 'Visit', status: 'active' });
  const step = await made(`/surveys/${survey}/steps`, { type: 'metrics', metrics: { metrics: [food] } });
  await made('/alert-rules', { name: 'Low', when: { maxRating: 2 }, notify: [{ role: 'owner' }] });
  /** An order through the webhook, as an ordering system sends it. */
  const order = async (fields: Record<string, unknown> = {}) => {
    const answer = await postWebhook(
      server,
      tenant.businessId,
      { externalOrderId: uniqueId(), total: '2350', currency: 'PKR', metadata: { source: 'till' }, ...fields },
      { secret },
    );
    if (answer.status !== 200) throw new Error(`webhook: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data.id as string;
  };
  /** A guest's order and their low rating of it: the case it opens. */
  const unhappy = async (guest: Record<string, unknown> = { customerEmail: `guest-${uniqueId()}@example.com` }) => {
    const ordered = await order(guest);
    const answered = await call('POST', `/surveys/${survey}/submissions`, { answers: [{ step, ratings: { [food]: 1 } }], order: ordered });
    if (answered.status !== 201) throw new Error(`answer: ${answered.status} ${JSON.stringify(answered.body)}`);
    const submission = answered.body.data.id;
    return (await call('GET', `/cases${qs({ filters: { field: 'id', type: 'ne', value: 'x' } })}`)).body.data.find(
      (c: { submission: string }) => c.submission === submission,
    );
  };
  const getCase = async (id: string) => (await call('GET', `/cases/${id}`)).body.data;
  const events = async (type: string) =>
    (await call('GET', `/events${qs({ filters: { field: 'type', type: 'eq', value: type } })}`)).body.data.map(
      (e: { data: { object: object } }) => e.data.object,
    );
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
      id: expect.stringMatching(/^off_/),
      object: 'offer',
      business: r.tenant.businessId,
      case: c.id,
      description: 'A free kheer with your next order',
      code: expect.stringMatching(/^[ABCDEFGHJKMNPQRSTWXYZ2-9]{10}$/),
      expiresAt: expect.any(Number),
      redeemedAt: null,
      redeemedOrder: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
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
    expectError(
      await rest(server, 'POST', `/v2/businesses/${other.businessId}/cases/${c.id}/offers`, { tenant: other, body: { description: 'x' } }),
      404,
      'not_found',
    );
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/cases/${c.id}/offers/${offer.id}`, { tenant: other }), 404, 'not_found');
  });

  it('a later webhook order carrying the code in any metadata value, in any case, redeems it exactly once and recovers the case', async () => {
    const r = await restaurant();
    const c = await r.unhappy();
    const offer = (await r.call('POST', `/cases/${c.id}/offers`, { description: 'Free dessert' })).body.data;
    // Two orders carrying the code at once (another guest's phone read it out twice): one redeems it.
    const [first, second] = await Promise.all([r.order({ metadata: { promo: offer.code.toLowerCase() } }), r.order({ metadata: { note: ` ${offer.code} ` } })]);
    const redeemed = (await r.call('GET', `/cases/${c.id}/offers/${offer.id}`)).body.data;
    expect([first, second]).toContain(redeemed.redeemedOrder);
    expect(redeemed.redeemedAt).toEqual(expect.any(Number));
    const recovered = await r.getCase(c.id);
    expect(recovered).toMatchObject({ status: 'recovered', recoveredAt: expect.any(Number), recoveredBy: { order: redeemed.redeemedOrder, offer: offer.id } });
    expect(await r.events('offer.redeemed')).toEqual([expect.objectContaining({ id: offer.id, redeemedOrder: redeemed.redeemedOrder })]);
    expect(await r.events('case.recovered')).toEqual([
      expect.objectContaining({ id: c.id, status: 'recovered', recoveredBy: { order: redeemed.redeemedOrder, offer: offer.id } }),
    ]);
    // A third order with the same code redeems nothing and changes nothing.
    await r.order({ metadata: { promo: offer.code } });
    expect((await r.call('GET', `/cases/${c.id}/offers/${offer.id}`)).body.data).toEqual(redeemed);
    expect(await r.events('offer.redeemed')).toHaveLength(1);
  });

  it("an expired offer, or another business's code, redeems nothing", async () => {
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
  it('recovers their case by ordering again within 60 days, by e-mail or by phone however written; another guest, or after 60 days, recovers nothing', async () => {
    const r = await restaurant();
    const byEmail = await r.unhappy({ customerEmail: 'ayesha@example.com' });
    const byPhone = await r.unhappy({ customerPhoneNumber: '+923001112233' });
    const old = await r.unhappy({ customerEmail: 'bilal@example.com' });
    await rows(server, `update guest_case set opened_at = now() - interval '61 days' where id = ?`, [old.id]);
    expect(byPhone).toMatchObject({ status: 'open', guest: { email: null, phone: '+923001112233' } });

    await r.order({ customerEmail: 'someone.else@example.com', customerPhoneNumber: '+923009998877' });
    expect(await r.getCase(byEmail.id)).toMatchObject({ status: 'open', recoveredBy: null });
    expect(await r.getCase(byPhone.id)).toMatchObject({ status: 'open', recoveredBy: null });
    const again = await r.order({ customerEmail: ' Ayesha@Example.com ' });
    expect(await r.getCase(byEmail.id)).toMatchObject({ status: 'recovered', recoveredAt: expect.any(Number), recoveredBy: { order: again, offer: null } });
    // The guest who gave only a phone comes back with it written the local way: the order stores it in E.164, and
    // that is the guest of the case.
    const phoneAgain = await r.order({ customerPhoneNumber: '0300 1112233' });
    expect((await r.call('GET', `/orders/${phoneAgain}`)).body.data).toMatchObject({ customerEmail: null, customerPhoneNumber: '+923001112233' });
    expect(await r.getCase(byPhone.id)).toMatchObject({
      status: 'recovered',
      recoveredAt: expect.any(Number),
      recoveredBy: { order: phoneAgain, offer: null },
    });
    // The old one is past the window.
    await r.order({ customerEmail: 'bilal@example.com' });
    expect(await r.getCase(old.id)).toMatchObject({ status: 'open', recoveredAt: null, recoveredBy: null });
    expect((await r.events('case.recovered')).map((c: { id: string }) => c.id).sort()).toEqual([byEmail.id, byPhone.id].sort());
    expect(await rows(server, `select id, status, recovered_order_id from guest_case where id in (?, ?) order by id`, [byEmail.id, byPhone.id])).toEqual(
      [
        { id: byEmail.id, status: 'recovered', recovered_order_id: again },
        { id: byPhone.id, status: 'recovered', recovered_order_id: phoneAgain },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('recovers a resolved case too, keeping when it was resolved: by the guest ordering again within 60 days, or by its offer', async () => {
    const r = await restaurant();
    const resolve = async (id: string) => {
      const patched = await r.call('PATCH', `/cases/${id}`, { status: 'resolved' });
      expect(patched.body.data).toMatchObject({ status: 'resolved', resolvedAt: expect.any(Number) });
      return patched.body.data.resolvedAt as number;
    };
    // Answered, resolved, and then the guest comes back.
    const answered = await r.unhappy({ customerEmail: 'zara@example.com' });
    expect((await r.call('POST', `/cases/${answered.id}/messages`, { body: 'So sorry, Zara. Please come again.' })).status).toBe(201);
    const answeredResolvedAt = await resolve(answered.id);
    // Resolved with an offer outstanding; its code comes back on another guest's order.
    const withOffer = await r.unhappy();
    const offer = (await r.call('POST', `/cases/${withOffer.id}/offers`, { description: 'Free kheer' })).body.data;
    const offerResolvedAt = await resolve(withOffer.id);
    // Resolved, but opened more than 60 days ago.
    const old = await r.unhappy({ customerEmail: 'omar@example.com' });
    await resolve(old.id);
    await rows(server, `update guest_case set opened_at = now() - interval '61 days' where id = ?`, [old.id]);

    const back = await r.order({ customerEmail: 'Zara@example.com' });
    expect(await r.getCase(answered.id)).toMatchObject({
      status: 'recovered',
      resolvedAt: answeredResolvedAt,
      firstReplyAt: expect.any(Number),
      recoveredAt: expect.any(Number),
      recoveredBy: { order: back, offer: null },
    });
    const redeeming = await r.order({ metadata: { promo: offer.code } });
    expect(await r.getCase(withOffer.id)).toMatchObject({
      status: 'recovered',
      resolvedAt: offerResolvedAt,
      recoveredBy: { order: redeeming, offer: offer.id },
    });
    expect((await r.call('GET', `/cases/${withOffer.id}/offers/${offer.id}`)).body.data).toMatchObject({
      redeemedOrder: redeeming,
      redeemedAt: expect.any(Number),
    });
    await r.order({ customerEmail: 'omar@example.com' });
    expect(await r.getCase(old.id)).toMatchObject({ status: 'resolved', recoveredAt: null, recoveredBy: null });
    expect((await r.events('case.recovered')).map((c: { id: string; resolvedAt: number }) => [c.id, c.resolvedAt]).sort()).toEqual(
      [
        [answered.id, answeredResolvedAt],
        [withOffer.id, offerResolvedAt],
      ].sort(),
    );
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
    const c = await r.unhappy();
    counter = countStatements(server.orm);
    try {
      await r.order({ customerEmail: 'third@example.com' });
      expect(touching(counter.statements)).toHaveLength(1);
    } finally {
      counter.restore();
    }
    // A resolved case opened more than 60 days ago waits for nothing: once the note is read again (every 2 s,
    // case-recovery.cache.ts), orders are free again.
    await r.call('PATCH', `/cases/${c.id}`, { status: 'resolved' });
    await rows(server, `update guest_case set opened_at = now() - interval '61 days' where id = ?`, [c.id]);
    await sleep(2_100);
    await r.order({ customerEmail: 'fourth@example.com' });
    counter = countStatements(server.orm);
    try {
      await r.order({ customerEmail: 'fifth@example.com' });
      expect(touching(counter.statements)).toEqual([]);
    } finally {
      counter.restore();
    }
  });
});

describe('reply templates', () => {
  it("are saved, changed and deleted by the business, and are another business's 404", async () => {
    const r = await restaurant();
    const id = await r.made('/reply-templates', { name: 'Apology', body: 'We are so sorry. Please give us another chance.' });
    expect((await r.call('PATCH', `/reply-templates/${id}`, { body: 'We are truly sorry.' })).body.data).toMatchObject({
      id,
      object: 'replytemplate',
      name: 'Apology',
      body: 'We are truly sorry.',
    });
    expectError(await r.call('POST', '/reply-templates', { name: '', body: 'x'.repeat(2001) }), 400, 'validation_failed');
    const other = await createTenant(server);
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/reply-templates/${id}`, { tenant: other }), 404, 'not_found');
    expect((await r.call('DELETE', `/reply-templates/${id}`)).status).toBe(204);
    expect((await r.call('GET', '/reply-templates')).body.data).toEqual([]);
  });
});

describe('recovery figures', () => {
  const FIELDS =
    'period location opened replied repliedWithinHour medianFirstReplyMinutes resolved recovered recoveryRate recoveredRevenue { currency amount }';
  const QUERY = `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $i: AnalyticsInterval!, $g: [AnalyticsGroupBy!]) {
    analyticsRecovery(business: $b, from: $from, to: $to, interval: $i, groupBy: $g) { ${FIELDS} } }`;

  it('match a count from the raw case rows, for any mix of replies, resolutions, recoveries and locations, by period or by location too; GraphQL answers as REST does (property)', async () => {
    const r = await restaurant();
    const locations = [await r.made('/locations', { name: 'Clifton' }), await r.made('/locations', { name: 'Gulberg' }), null];
    const cases: Array<{ id: string }> = [];
    for (let i = 0; i < 12; i++) cases.push(await r.unhappy());
    const recoveringOrders = [
      await r.order({ total: '1000' }),
      await r.order({ total: '250.5', currency: 'PKR' }),
      await r.order({ total: '40', currency: 'USD' }),
    ];
    const HOUR = 3_600_000;
    const day = Date.UTC(2026, 9, 1);
    const shape = fc.array(
      fc.record({
        openedDay: fc.integer({ min: 0, max: 20 }),
        replyMinutes: fc.option(fc.integer({ min: 0, max: 3000 })),
        resolved: fc.boolean(),
        recoveredBy: fc.option(fc.integer({ min: 0, max: 2 })),
        location: fc.integer({ min: 0, max: 2 }),
      }),
      { minLength: 12, maxLength: 12 },
    );
    let grouped = 0;
    await fc.assert(
      fc.asyncProperty(shape, fc.constantFrom('day', 'week', 'month', 'total'), fc.boolean(), async (states, interval, byLocation) => {
        if (byLocation) grouped++;
        for (const [i, s] of states.entries()) {
          const opened = day + s.openedDay * 86_400_000 + 5 * HOUR;
          await rows(
            server,
            `update guest_case set opened_at = to_timestamp(?::float8 / 1000), first_reply_at = ${s.replyMinutes == null ? 'null' : `to_timestamp(?::float8 / 1000)`},
              resolved_at = ${s.resolved ? 'opened_at' : 'null'}, status = ?, recovered_order_id = ?, recovered_at = ${s.recoveredBy == null ? 'null' : 'now()'}, location_id = ? where id = ?`,
            [
              opened,
              ...(s.replyMinutes == null ? [] : [opened + s.replyMinutes * 60_000]),
              s.recoveredBy == null ? (s.resolved ? 'resolved' : 'open') : 'recovered',
              s.recoveredBy == null ? null : recoveringOrders[s.recoveredBy],
              locations[s.location],
              cases[i].id,
            ],
          );
        }
        const from = day;
        const to = day + 21 * 86_400_000;
        const answer = await r.call(
          'GET',
          `/analytics/recovery?${new URLSearchParams({ from: String(from), to: String(to), interval, ...(byLocation ? { groupBy: 'location' } : {}) })}`,
        );
        expect(answer.status).toBe(200);
        const raw = await rows(
          server,
          `select g.*, extract(epoch from g.opened_at) * 1000 as opened_ms, extract(epoch from g.first_reply_at - g.opened_at) / 60 as reply_minutes, o.total, o.currency
            from guest_case g left join customer_order o on o.id = g.recovered_order_id where g.business_id = ?`,
          [r.tenant.businessId],
        );
        const bucketOf = (ms: number) => {
          const d = new Date(ms);
          if (interval === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
          if (interval === 'week') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
          if (interval === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
          return from;
        };
        const expected = new Map<string, any>();
        for (const g of raw) {
          const period = bucketOf(Number(g.opened_ms));
          const location = byLocation ? (g.location_id as string | null) : null;
          const key = `${period} ${location}`;
          const e = expected.get(key) ?? {
            period,
            location,
            opened: 0,
            replied: 0,
            repliedWithinHour: 0,
            minutes: [] as number[],
            resolved: 0,
            recovered: 0,
            revenue: new Map<string, number>(),
            orders: new Set<string>(),
          };
          e.opened++;
          if (g.first_reply_at) {
            e.replied++;
            e.minutes.push(Number(g.reply_minutes));
            if (Number(g.reply_minutes) <= 60) e.repliedWithinHour++;
          }
          if (g.resolved_at) e.resolved++;
          if (g.status === 'recovered') {
            e.recovered++;
            // An order that brought back two cases of its guest is revenue once (in each group).
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
        // By period, then by location (the case's id order; cases without one last).
        const byPlace = (a: string | null, b: string | null) => (a === b ? 0 : a == null ? 1 : b == null ? -1 : a < b ? -1 : 1);
        const want = [...expected.values()]
          .sort((a, b) => a.period - b.period || byPlace(a.location, b.location))
          .map((e) => ({
            period: e.period,
            location: e.location,
            opened: e.opened,
            replied: e.replied,
            repliedWithinHour: e.repliedWithinHour,
            medianFirstReplyMinutes: median(e.minutes),
            resolved: e.resolved,
            recovered: e.recovered,
            recoveryRate: e.recovered / e.opened,
            recoveredRevenue: [...e.revenue].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, amount]) => ({ currency, amount })),
          }));
        const rounded = (xs: any[]) =>
          xs.map((x: any) => ({ ...x, medianFirstReplyMinutes: x.medianFirstReplyMinutes == null ? null : Math.round(x.medianFirstReplyMinutes * 1e6) / 1e6 }));
        expect(rounded(answer.body.data)).toEqual(rounded(want));
        // Grouped, every case is counted once across the locations: the totals are the ungrouped ones.
        if (byLocation) expect(answer.body.data.reduce((n: number, x: { opened: number }) => n + x.opened, 0)).toBe(raw.length);

        // The same question over GraphQL: the same answer, to the last figure.
        const graphql = await server.graphql(QUERY, { b: r.tenant.businessId, from, to, i: interval, g: byLocation ? ['location'] : [] }, r.tenant.headers);
        expect(graphql.body.errors).toBeUndefined();
        expect(graphql.body.data.analyticsRecovery).toEqual(answer.body.data);
      }),
      { seed: 20261127, numRuns: 15 },
    );
    expect(grouped).toBeGreaterThan(0);
  });

  it("are another business's 403 and need analytics:read, over REST and GraphQL", async () => {
    const r = await restaurant();
    await r.unhappy();
    const range = { from: String(Date.now() - 86_400_000), to: String(Date.now() + 86_400_000) };
    const path = `${r.b}/analytics/recovery?${new URLSearchParams({ ...range, interval: 'total', groupBy: 'location' })}`;
    const mine = await r.call('GET', `/analytics/recovery?${new URLSearchParams({ ...range, interval: 'total', groupBy: 'location' })}`);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual([expect.objectContaining({ location: null, opened: 1 })]);

    // Another business's token, with every scope: its own business's figures, never these.
    const other = await createTenant(server);
    expectError(await rest(server, 'GET', path, { tenant: other }), 403, 'forbidden');
    const variables = { b: r.tenant.businessId, from: Number(range.from), to: Number(range.to), i: 'total', g: ['location'] };
    const theirs = await server.graphql(QUERY, variables, other.headers);
    expect(theirs.body).toEqual({ data: null, errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })] });

    // This business's own user and credential, with every scope but analytics:read.
    const issued = await issueToken(server, {
      credential: r.tenant.credentialId,
      clientId: r.tenant.clientId,
      business: r.tenant.businessId,
      user: r.tenant.userId,
      scopes: SCOPES.filter((scope) => scope !== 'analytics:read'),
      withRefreshToken: false,
    });
    const noAnalytics = { authorization: `Bearer ${issued.accessToken}` };
    expectError(await rest(server, 'GET', path, { headers: noAnalytics }), 403, 'forbidden');
    const unscoped = await server.graphql(QUERY, variables, noAnalytics);
    expect(unscoped.body).toEqual({ data: null, errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })] });
    // The same token reads the cases themselves: only the figures need the scope.
    expect((await rest(server, 'GET', `${r.b}/cases`, { headers: noAnalytics })).status).toBe(200);
  });
});
