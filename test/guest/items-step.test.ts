import { useTestServer, type TestServer } from '../helpers/server.js';
import { GuestAgent, guestSurvey, h1, type GuestSurveyFixture } from '../helpers/guest.js';
import { rest } from '../rest/rest.helpers.js';

/**
 * Issue 36's `items` step (rate what you ate) and figures by server: the page asks about each dish of the linked
 * order once, skips the step without one, refuses a dish the order does not have; the API checks the same; dish
 * ratings reach analyticsMenuItems as `source: direct`, and an alert rule's maxRating; analytics group by `staff`
 * and mark groups under minCount `insufficient`.
 */
let server: TestServer;
let fx: GuestSurveyFixture;
let items: string;
let order: string;
let dishes: { biryani: string; raita: string };
const ORDER_ID = 'KK-1001';

const SUB = 'id status order { id staff } answers { step value ratings items }';

useTestServer(
  async (s) => {
    server = s;
    fx = await guestSurvey(s, { steps: [] });
    fx.steps.rate = await fx.addStep({ type: 'metrics', required: true, content: { title: 'How was it?' }, metrics: { metrics: [fx.metrics.food] } });
    items = fx.steps.items = await fx.addStep({ type: 'items', required: true, content: { title: 'How was each dish?', scale: '5' } });
    fx.steps.text = await fx.addStep({ type: 'text', content: { title: 'Anything else?' } });
    const created = await fx.c.data(
      `mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id staff items { name quantity menuItem { id name } } } }`,
      {
        b: fx.business,
        i: {
          externalOrderId: ORDER_ID,
          total: 2400,
          currency: 'PKR',
          metadata: { server: 'Ali', table: '4' },
          items: [
            { name: 'Chicken Biryani', quantity: 1 },
            { name: 'Raita', quantity: 2 },
            { name: 'Chicken Biryani', quantity: 1 },
          ],
        },
      },
    );
    order = created.createOrder.id;
    expect(created.createOrder.staff).toBe('Ali');
    const lines = created.createOrder.items as Array<{ name: string; menuItem: { id: string } }>;
    dishes = { biryani: lines[0].menuItem.id, raita: lines[1].menuItem.id };
    expect(lines[2].menuItem.id).toBe(dishes.biryani);
  },
  { env: { TRUST_PROXY_HOPS: '1' } },
);

let ip = 0;
const agent = () => new GuestAgent(server.url, { 'x-forwarded-for': `10.36.${Math.floor(++ip / 250)}.${ip % 250}` });
const legends = (html: string) => [...html.matchAll(/<legend><span dir="auto">([^<]*)<\/span>/g)].map((m) => m[1]);

async function submissionsOf(where: object = {}) {
  const d = await fx.c.data(
    `query($b: ID!, $s: ID!, $w: SubmissionWhere) { submissions(business: $b, survey: $s, where: $w, pageSize: 100) { data { ${SUB} } } }`,
    {
      b: fx.business,
      s: fx.survey,
      w: where,
    },
  );
  return d.submissions.data as any[];
}

describe('the items step on the survey page', () => {
  it('asks once per dish of the order (3 lines, 2 of the same dish: 2 questions), each a radio group in a fieldset with the dish as legend', async () => {
    const g = agent();
    let page = await g.get(`${fx.path}?custom.customOrderId=${ORDER_ID}`);
    expect(page.html).toContain('Step 1 of 3');
    page = (await g.answer(page, { [`rating-${fx.metrics.food}`]: '4' })).next;
    expect(page.step).toBe(items);
    expect(page.html).toContain('Step 2 of 3');
    expect(h1(page.html)).toBe('How was each dish?');
    expect(legends(page.html)).toEqual(['Chicken Biryani', 'Raita']);
    expect(page.html.match(/<fieldset/g)).toHaveLength(2);
    for (const id of Object.values(dishes)) {
      expect(page.html.match(new RegExp(`type="radio" id="i-${id}-\\d" name="item-${id}"`, 'g'))).toHaveLength(5);
    }
    // The quantities as ordered: two plates of biryani over two lines, two of raita on one.
    expect(page.html).toContain('Quantity: 2');

    // A required step wants every dish; the error links to the dish's first radio.
    const missing = await g.answer(page, { [`item-${dishes.biryani}`]: '5' });
    expect(missing.post.status).toBe(422);
    expect(missing.post.html).toContain(`href="#i-${dishes.raita}-0"`);
    expect(missing.post.html).toContain('Choose a rating for Raita');

    // A dish not on the order (another menu item's id, posted by hand) is refused.
    const forged = await g.answer(page, { [`item-${dishes.biryani}`]: '5', [`item-${dishes.raita}`]: '2', 'item-mni_forged': '1' });
    expect(forged.post.status).toBe(422);

    page = (await g.answer(page, { [`item-${dishes.biryani}`]: '5', [`item-${dishes.raita}`]: '2' })).next;
    expect(h1(page.html)).toBe('Anything else?');
    const done = await g.answer(page, {});
    expect(done.post.location).toMatch(/\/thanks/);
    const [response] = await submissionsOf({ order: { eq: order } });
    expect(response).toMatchObject({
      status: 'completed',
      order: { id: order, staff: 'Ali' },
      answers: expect.arrayContaining([{ step: items, value: null, ratings: null, items: { [dishes.biryani]: 5, [dishes.raita]: 2 } }]),
    });
  });

  it('is skipped without an order: the page goes from the first step to the last', async () => {
    const g = agent();
    let page = await g.get(`${fx.path}?ch=qr`);
    expect(page.html).toContain('Step 1 of 2');
    page = (await g.answer(page, { [`rating-${fx.metrics.food}`]: '3' })).next;
    expect(h1(page.html)).toBe('Anything else?');
    expect(page.html).toContain('Step 2 of 2');
    // Asked for by address, it is not shown either.
    const asked = await g.get(`${fx.path}?ch=qr&step=${items}`);
    expect(asked.step).not.toBe(items);
  });

  it('is skipped for an order without lines', async () => {
    await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { externalOrderId: 'KK-EMPTY', total: 0, currency: 'PKR' },
    });
    const page = await agent().get(`${fx.path}?custom.customOrderId=KK-EMPTY`);
    expect(page.html).toContain('Step 1 of 2');
  });

  it('offers thumbs up and down when content.scale is thumbs', async () => {
    await fx.c.data(
      `mutation($b: ID!, $s: ID!, $id: ID!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: {content: {scale: "thumbs"}}) { id } }`,
      {
        b: fx.business,
        s: fx.survey,
        id: items,
      },
    );
    await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { externalOrderId: 'KK-THUMBS', total: 500, currency: 'PKR', items: [{ name: 'Raita', quantity: 1 }] },
    });
    for (let until = Date.now() + 5000; ; ) {
      const g = agent();
      const first = await g.get(`${fx.path}?custom.customOrderId=KK-THUMBS`);
      const page = (await g.answer(first, { [`rating-${fx.metrics.food}`]: '4' })).next;
      const radios = page.html.match(new RegExp(`name="item-${dishes.raita}" value="(\\d)"`, 'g')) ?? [];
      if (radios.length === 2 || Date.now() > until) {
        expect(radios.map((r) => r.slice(-2, -1))).toEqual(['5', '1']);
        expect(page.html).toContain('Not good');
        const bad = await g.answer(page, { [`item-${dishes.raita}`]: '3' });
        expect(bad.post.status).toBe(422);
        break;
      }
    }
    await fx.c.data(`mutation($b: ID!, $s: ID!, $id: ID!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: {content: {scale: "5"}}) { id } }`, {
      b: fx.business,
      s: fx.survey,
      id: items,
    });
  });
});

describe('the items step through the API', () => {
  const create = async (answers: object[], extra: object = {}) =>
    (
      await fx.c.raw(
        `mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id answers { step items } } }`,
        {
          b: fx.business,
          s: fx.survey,
          i: { answers, ...extra },
        },
      )
    ).body;

  it('refuses a menu item not on the order, a rating off the scale, and items on another kind of step', async () => {
    // A real menu item of the business, from another order's line: not on this order.
    const kheer = await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { items { menuItem { id } } } }`, {
      b: fx.business,
      i: { externalOrderId: 'KK-KHEER', total: 300, currency: 'PKR', items: [{ name: 'Kheer', quantity: 1 }] },
    });
    const other = kheer.createOrder.items[0].menuItem.id as string;
    const res = await create(
      [
        { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 }, items: { [dishes.raita]: 4 } },
        { step: items, items: { [dishes.biryani]: 5, [dishes.raita]: 6, [other]: 3 } },
      ],
      { order: order },
    );
    const fields = (res.errors[0].extensions.details as Array<{ field: string }>).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['answers[0].items', `answers[1].items.${dishes.raita}`, `answers[1].items.${other}`]));
  });

  it('takes no dish without an order, and does not require the step then', async () => {
    const refused = await create([
      { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 } },
      { step: items, items: { [dishes.raita]: 4 } },
    ]);
    expect(JSON.stringify(refused.errors)).toContain(`answers[1].items.${dishes.raita}`);
    const ok = await create([{ step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 } }]);
    expect(ok.errors).toBeUndefined();
  });

  it('counts dishes rated directly in analyticsMenuItems as source direct, beside the order-linked metric ratings', async () => {
    const ok = await create(
      [
        { step: fx.steps.rate, ratings: { [fx.metrics.food]: 2 } },
        { step: items, items: { [dishes.biryani]: 3, [dishes.raita]: 1 } },
      ],
      { order },
    );
    expect(ok.errors).toBeUndefined();
    const d = await fx.c.data(
      `query($b: ID!) { analyticsMenuItems(business: $b, from: 1767225600000, to: 1830297600000, minCount: 1, sort: mean, order: desc) { menuItem name source metric count mean } }`,
      { b: fx.business },
    );
    const rows = d.analyticsMenuItems as Array<{ menuItem: string; source: string; count: number; mean: number; name: string }>;
    // The page's guest (5, 2) and this one (3, 1).
    expect(rows.filter((r) => r.source === 'direct')).toEqual([
      { menuItem: dishes.biryani, name: 'Chicken Biryani', source: 'direct', metric: null, count: 2, mean: 4 },
      { menuItem: dishes.raita, name: 'Raita', source: 'direct', metric: null, count: 2, mean: 1.5 },
    ]);
    // The metric ratings of the orders that had the dish (the biryani's: both guests of order KK-1001, 4 and 2).
    expect(rows.find((r) => r.source === 'order' && r.menuItem === dishes.biryani)).toMatchObject({ count: 2, mean: 3 });
    const direct = await fx.c.data(
      `query($b: ID!) { analyticsMenuItems(business: $b, from: 1767225600000, to: 1830297600000, minCount: 1, source: direct) { source } }`,
      { b: fx.business },
    );
    expect(new Set(direct.analyticsMenuItems.map((r: any) => r.source))).toEqual(new Set(['direct']));
  });

  it("opens a case on a dish rated at or under an alert rule's maxRating, named after the dish", async () => {
    await fx.c.data(`mutation($b: ID!, $i: CreateAlertRuleInput!) { createAlertRule(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { name: 'Low dish', when: { maxRating: 1 }, notify: [{ role: 'owner' }] },
    });
    const o = await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { externalOrderId: 'KK-CASE', total: 900, currency: 'PKR', items: [{ name: 'Raita', quantity: 1 }] },
    });
    const low = await create(
      [
        { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 } },
        { step: items, items: { [dishes.raita]: 1 } },
      ],
      { order: o.createOrder.id },
    );
    expect(low.errors).toBeUndefined();
    const happy = await create(
      [
        { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 } },
        { step: items, items: { [dishes.raita]: 4 } },
      ],
      { order: o.createOrder.id },
    );
    expect(happy.errors).toBeUndefined();
    const cases = await fx.c.data(`query($b: ID!) { cases(business: $b) { data { reason } } }`, { b: fx.business });
    expect(cases.cases.data.map((c: any) => c.reason)).toEqual(['Raita 1 of 5']);
  });
});

describe('figures by server', () => {
  const metrics = (extra: string) =>
    fx.c.data(
      `query($b: ID!) { analyticsMetrics(business: $b, from: 1767225600000, to: 1830297600000, interval: total, ${extra}) { staff location count mean insufficient rank } }`,
      { b: fx.business },
    );

  it('groups by staff (the order metadata key the business names), marks groups under minCount insufficient and ranks the others', async () => {
    const orderFor = async (externalOrderId: string, metadata: Record<string, string>) =>
      (
        await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id staff } }`, {
          b: fx.business,
          i: { externalOrderId, total: 100, currency: 'PKR', metadata },
        })
      ).createOrder;
    const rate = async (orderId: string, food: number) => {
      await fx.c.data(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
        b: fx.business,
        s: fx.survey,
        i: { order: orderId, answers: [{ step: fx.steps.rate, ratings: { [fx.metrics.food]: food } }] },
      });
    };
    for (let i = 0; i < 3; i++) await rate((await orderFor(`S-${i}`, { server: 'Sara' })).id, 5);
    for (let i = 0; i < 2; i++) await rate((await orderFor(`W-${i}`, { waiter: 'Wasim', server: '' })).id, 1);
    // The business names another key: orders show it, new submissions count by it.
    const updated = await fx.c.data(`mutation($id: ID!) { updateBusiness(id: $id, input: {staffKey: "waiter"}) { staffKey } }`, { id: fx.business });
    expect(updated.updateBusiness.staffKey).toBe('waiter');
    const wasim = await orderFor('W-2', { waiter: 'Wasim' });
    expect(wasim.staff).toBe('Wasim');
    await rate(wasim.id, 2);

    const rows = (await metrics('groupBy: [staff]')).analyticsMetrics as Array<{
      staff: string | null;
      count: number;
      mean: number;
      insufficient: boolean;
      rank: number | null;
    }>;
    const of = (staff: string | null) => rows.find((r) => r.staff === staff);
    expect(of('Sara')).toMatchObject({ count: 3, mean: 5, insufficient: true, rank: null });
    expect(of('Ali')).toMatchObject({ insufficient: true, rank: null });
    // The two written under the old key had no server; the third counts for Wasim.
    expect(of('Wasim')).toMatchObject({ count: 1, mean: 2, insufficient: true, rank: null });

    const ranked = (await metrics('groupBy: [staff], minCount: 2')).analyticsMetrics as typeof rows;
    const sara = ranked.find((r) => r.staff === 'Sara')!;
    expect(sara).toMatchObject({ insufficient: false, rank: 1 });
    expect(ranked.find((r) => r.staff === 'Wasim')).toMatchObject({ insufficient: true, rank: null });
    // Ranked by mean, best first, ties sharing a rank; every group with enough answers has one.
    const rankedRows = ranked.filter((r) => !r.insufficient);
    for (const x of rankedRows) {
      expect(x.rank).toBe(1 + rankedRows.filter((y) => y.mean > x.mean).length);
    }

    // A staff filter; NPS accepts staff too; without a comparison nothing is marked.
    const only = (await metrics('staff: "Sara"')).analyticsMetrics;
    expect(only).toEqual([{ staff: null, location: null, count: 3, mean: 5, insufficient: false, rank: null }]);
    const nps = await fx.c.data(
      `query($b: ID!) { analyticsNps(business: $b, from: 1767225600000, to: 1830297600000, interval: total, groupBy: [staff]) { staff count insufficient rank } }`,
      { b: fx.business },
    );
    expect(nps.analyticsNps).toEqual([]);
    await fx.c.data(`mutation($id: ID!) { updateBusiness(id: $id, input: {staffKey: null}) { staffKey } }`, { id: fx.business });
  });

  it('REST: GET .../analytics/metrics?groupBy=staff answers a row per server, those under minCount insufficient and unranked', async () => {
    // The default key again (null clears), set over REST as docs/rest.md says.
    const reset = await rest(server, 'PATCH', `/v2/businesses/${fx.business}`, { tenant: fx.tenant, body: { staffKey: null } });
    expect([reset.status, reset.body.data.staffKey]).toEqual([200, 'server']);
    for (let i = 0; i < 2; i++) {
      const created = await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id staff } }`, {
        b: fx.business,
        i: { externalOrderId: `Z-${i}`, total: 100, currency: 'PKR', metadata: { server: 'Zara' } },
      });
      expect(created.createOrder.staff).toBe('Zara');
      await fx.c.data(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
        b: fx.business,
        s: fx.survey,
        i: { order: created.createOrder.id, answers: [{ step: fx.steps.rate, ratings: { [fx.metrics.food]: 4 } }] },
      });
    }
    type Row = { staff: string | null; count: number; mean: number; insufficient: boolean; rank: number | null };
    const get = async (extra = '') => {
      const res = await rest(
        server,
        'GET',
        `/v2/businesses/${fx.business}/analytics/metrics?from=1767225600000&to=1830297600000&interval=total&groupBy=staff${extra}`,
        { tenant: fx.tenant },
      );
      expect(res.status).toBe(200);
      return res.body.data as Row[];
    };
    // minCount defaults to 10: every server here has fewer answers, so each group is marked and none is ranked.
    const rows = await get();
    expect(rows.every((r) => 'staff' in r && r.insufficient === true && r.rank === null)).toBe(true);
    expect(rows.find((r) => r.staff === 'Zara')).toMatchObject({ count: 2, mean: 4, insufficient: true, rank: null });
    expect(new Set(rows.map((r) => r.staff)).size).toBe(rows.length);
    // With minCount=2, Zara's two answers are enough and she is ranked; a server with one answer still is not.
    const ranked = await get('&minCount=2');
    expect(ranked.find((r) => r.staff === 'Zara')).toMatchObject({ count: 2, insufficient: false, rank: expect.any(Number) });
    for (const r of ranked)
      expect({ staff: r.staff, insufficient: r.insufficient, unranked: r.rank === null }).toEqual({
        staff: r.staff,
        insufficient: r.count < 2,
        unranked: r.count < 2,
      });
  });

  it('refuses an empty staffKey', async () => {
    const err = await fx.c.error(`mutation($id: ID!) { updateBusiness(id: $id, input: {staffKey: "  "}) { staffKey } }`, { id: fx.business });
    expect(err.details).toEqual([{ field: 'staffKey', message: 'must be 1 to 100 characters' }]);
  });
});
