import type { TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { client, sleep, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;
let survey: string;
const step: Record<string, string> = {};
let food: string;
let service: string;

const S =
  'id object answers { step value ratings } guestId sessionId metadata createdAt updatedAt survey { id } order { id externalOrderId externalLocationId } location { id name } business { id }';

async function order(c: Client, bus: string, externalOrderId: string, externalLocationId?: string) {
  const input = { externalOrderId, externalLocationId, total: 10, currency: 'PKR' };
  return (await c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, { b: bus, i: input })).createOrder
    .id as string;
}

let headersA: Record<string, string>;
useTwoTenants((t) => {
  ({ server, a, b, busA, busB } = t);
  headersA = t.ta.headers;
});
beforeAll(async () => {
  survey = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Visit"}) { id } }`, { b: busA })).createSurvey.id;
  food = (await a.data(`mutation($b: ID!) { createMetric(business: $b, input: {name: "Food"}) { id } }`, { b: busA })).createMetric.id;
  service = (await a.data(`mutation($b: ID!) { createMetric(business: $b, input: {name: "Service", scale: {min: 0, max: 10}}) { id } }`, { b: busA }))
    .createMetric.id;
  const mk = async (key: string, input: object) => {
    step[key] = (
      await a.data(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
        b: busA,
        s: survey,
        i: input,
      })
    ).createSurveyStep.id;
  };
  await mk('loc', { type: 'location', required: true });
  await mk('rate', { type: 'metrics', required: true, metrics: { metrics: [food, service] } });
  await mk('nps', { type: 'nps' });
  await mk('choice', { type: 'choice', content: { choices: ['Dine-in', 'Takeaway'] } });
  await mk('text', { type: 'text', validation: { maxLength: 10 } });
  await mk('info', { type: 'info' });
});

const create = (input: object, c = a, bus = busA, s = survey) =>
  c
    .data(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { ${S} } }`, { b: bus, s, i: input })
    .then((d) => d.createSubmission);
const createErr = (input: object) =>
  a.error(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
    b: busA,
    s: survey,
    i: input,
  });
const ratings = () => ({ step: step.rate, ratings: { [food]: 4, [service]: 9 } });

describe('submissions', () => {
  it('creates with answers checked against the steps, and reads back', async () => {
    const sub = await create({
      answers: [
        { step: step.loc, value: 'Gulberg' },
        ratings(),
        { step: step.nps, value: 10 },
        { step: step.choice, value: ['Takeaway'] },
        { step: step.text, value: 'great' },
      ],
      guestId: 'g-1',
      sessionId: 's-1',
      metadata: { source: 'qr' },
    });
    expect(sub).toMatchObject({
      object: 'submission',
      guestId: 'g-1',
      sessionId: 's-1',
      metadata: { source: 'qr' },
      survey: { id: survey },
      order: null,
      location: null,
      business: { id: busA },
    });
    expect(sub.answers[1]).toEqual({ step: step.rate, value: null, ratings: { [food]: 4, [service]: 9 } });
    const read = await a.data(`query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { ${S} } }`, {
      b: busA,
      s: survey,
      id: sub.id,
    });
    expect(read.submission).toEqual(sub);
  });

  it('names the step in each answer error', async () => {
    const cases: Array<[object[], string, RegExp]> = [
      [[{ step: 'step_01ARZ3NDEKTSV4RRFFQ69G5FAV', value: 'x' }], 'answers[0].step', /not a step of this survey/],
      [
        [
          { step: step.loc, value: 'x' },
          { step: step.rate, ratings: { [food]: 6, [service]: 3 } },
        ],
        `answers[1].ratings.${food}`,
        /outside Food's scale 1 to 5/,
      ],
      [
        [
          { step: step.loc, value: 'x' },
          { step: step.rate, ratings: { [food]: 3 } },
        ],
        'answers[1].ratings',
        new RegExp(`requires a rating of ${service}`),
      ],
      [[{ step: step.loc, value: 'x' }, ratings(), { step: step.nps, value: 11 }], 'answers[2].value', /0 to 10/],
      [[{ step: step.loc, value: 'x' }, ratings(), { step: step.choice, value: 'Delivery' }], 'answers[2].value', /not one of its choices/],
      [[{ step: step.loc, value: 'x' }, ratings(), { step: step.text, value: 'far too long here' }], 'answers[2].value', /at most 10/],
      [[{ step: step.loc, value: 'x' }, ratings(), { step: step.info, value: 'x' }], 'answers[2]', /takes no answer/],
      [[{ step: step.loc, value: 'x' }, ratings(), ratings()], 'answers[2].step', /answered twice/],
      [[{ step: step.loc, value: 'x' }], 'answers', new RegExp(`step ${step.rate} \\(position 1\\) is required`)],
    ];
    for (const [answers, field, message] of cases) {
      const err = await createErr({ answers });
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.details).toContainEqual({ field, message: expect.stringMatching(message) });
    }
    const missingLoc = await createErr({ answers: [ratings()] });
    expect(missingLoc.details).toEqual([{ field: 'answers', message: expect.stringContaining(step.loc) }]);
  });

  describe('survey-link parameters (interface 4.9)', () => {
    let lhr: string;
    let isb: string;
    let orderLhr: string;
    let orderIsb: string;
    let orderNoLoc: string;
    beforeAll(async () => {
      lhr = (await a.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "Gulberg", metadata: {branch: "LHR-01"}}) { id } }`, { b: busA }))
        .createLocation.id;
      isb = (
        await a.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "Blue Area", metadata: {branch: "ISB-02", code: "77"}}) { id } }`, {
          b: busA,
        })
      ).createLocation.id;
      orderLhr = await order(a, busA, 'O-1', 'LHR-01');
      orderIsb = await order(a, busA, 'O-1', 'ISB-02');
      orderNoLoc = await order(a, busA, 'O-2');
    });

    it('customOrderId + customLocationId find the order at that location', async () => {
      const sub = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], custom: { customOrderId: 'O-1', customLocationId: 'ISB-02' } });
      expect(sub.order).toEqual({ id: orderIsb, externalOrderId: 'O-1', externalLocationId: 'ISB-02' });
      expect(sub.location).toBeNull();
    });

    it('location:metadata resolves the location, skips the location step, and is the fall-back order scope', async () => {
      const sub = await create({ answers: [ratings()], custom: { customOrderId: 'O-1' }, locationMetadata: 'branch.LHR-01' });
      expect(sub.location).toEqual({ id: lhr, name: 'Gulberg' });
      expect(sub.order.id).toBe(orderLhr);
    });

    it('when both are sent and differ, customLocationId scopes the order and metadata the location', async () => {
      const sub = await create({ answers: [ratings()], custom: { customOrderId: 'O-1', customLocationId: 'LHR-01' }, locationMetadata: 'code.77' });
      expect(sub.location.id).toBe(isb);
      expect(sub.order.id).toBe(orderLhr);
    });

    it('customOrderId alone finds the order sent without a location id', async () => {
      const sub = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], custom: { customOrderId: 'O-2' } });
      expect(sub.order.id).toBe(orderNoLoc);
    });

    it('leaves the submission unlinked when the order is unknown or ambiguous, and keeps the feedback', async () => {
      const unknown = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], custom: { customOrderId: 'O-404', customLocationId: 'LHR-01' } });
      expect(unknown.order).toBeNull();
      const ambiguous = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], custom: { customOrderId: 'O-1' } });
      expect(ambiguous.order).toBeNull();
      const noLocation = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], locationMetadata: 'branch.NOWHERE' });
      expect(noLocation.location).toBeNull();
    });

    it('refuses a malformed location:metadata', async () => {
      const err = await createErr({ answers: [ratings()], locationMetadata: 'nodot' });
      expect(err.details).toContainEqual({ field: 'locationMetadata', message: expect.any(String) });
    });

    it("never links another business's order or location", async () => {
      const theirOrder = await order(b, busB, 'O-9', 'LHR-01');
      const viaLink = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], custom: { customOrderId: 'O-9', customLocationId: 'LHR-01' } });
      expect(viaLink.order).toBeNull();
      expect((await createErr({ answers: [ratings()], order: theirOrder })).code).toBe('NOT_FOUND');
      const theirLoc = (await b.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "T"}) { id } }`, { b: busB })).createLocation.id;
      expect((await createErr({ answers: [ratings()], location: theirLoc })).code).toBe('NOT_FOUND');
    });

    it('Order.submissions lists the linked feedback', async () => {
      const { order: o } = await a.data(`query($b: ID!, $id: ID!) { order(business: $b, id: $id) { submissions { id order { id } } } }`, {
        b: busA,
        id: orderLhr,
      });
      expect(o.submissions.length).toBe(2);
      expect(o.submissions.every((s: any) => s.order.id === orderLhr)).toBe(true);
    });

    it("relations into another domain need that domain's read scope", async () => {
      const t = await createTenant(server, { scopes: ['orders:read'] });
      const c = client(server, t.headers);
      await server.orm.em
        .fork()
        .getConnection()
        .execute(
          `insert into customer_order (id, business_id, external_order_id, source, status, currency, total, metadata, created_at, updated_at)
         values ('ord_01ARZ3NDEKTSV4RRFFQ69G5FAV', ?, 'X', 'api', 'PENDING', 'PKR', 1, '{}', now(), now())`,
          [t.businessId],
        );
      const { body } = await c.raw(`query($b: ID!) { orders(business: $b) { data { id submissions { id } } } }`, { b: t.businessId });
      expect(body.errors[0]).toMatchObject({ path: ['orders', 'data', 0, 'submissions'], extensions: { code: 'FORBIDDEN' } });
    });

    it('filters submissions by order and location', async () => {
      const q = `query($b: ID!, $s: ID!, $w: SubmissionWhere) { submissions(business: $b, survey: $s, where: $w) { total } }`;
      expect((await a.data(q, { b: busA, s: survey, w: { order: { eq: orderLhr } } })).submissions.total).toBe(2);
      expect((await a.data(q, { b: busA, s: survey, w: { location: { in: [lhr, isb] } } })).submissions.total).toBe(2);
      expect((await a.data(q, { b: busA, s: survey, w: { guestId: { eq: 'g-1' } } })).submissions.total).toBe(1);
      // null compares as SQL's IS [NOT] NULL: without an order, with one; an empty `in` matches nothing.
      const total = async (w: object | null) => (await a.data(q, { b: busA, s: survey, w })).submissions.total;
      const [all, withOrder, withoutOrder] = [await total(null), await total({ order: { ne: null } }), await total({ order: { eq: null } })];
      expect(withOrder).toBeGreaterThanOrEqual(2);
      expect(withoutOrder).toBeGreaterThan(0);
      expect(withOrder + withoutOrder).toBe(all);
      expect(await total({ location: { in: [] } })).toBe(0);
    });
  });

  it('lists newest first, pages, updates and deletes', async () => {
    const x = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], guestId: 'list-1' });
    await sleep(2);
    const y = await create({ answers: [{ step: step.loc, value: 'x' }, ratings()], guestId: 'list-2' });
    const page = await a.data(
      `query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, pageSize: 2, where: {guestId: {contains: "list-"}}) { data { id } total hasMore } }`,
      { b: busA, s: survey },
    );
    expect(page.submissions).toEqual({ data: [{ id: y.id }, { id: x.id }], total: 2, hasMore: false });
    const asc = await a.data(
      `query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, where: {createdAt: {gte: ${x.createdAt}}}, orderBy: [{field: createdAt, order: asc}]) { data { id } } }`,
      { b: busA, s: survey },
    );
    expect(asc.submissions.data.map((s: any) => s.id)).toEqual([x.id, y.id]);
    const up = await a.data(
      `mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSubmissionInput!) { updateSubmission(business: $b, survey: $s, id: $id, input: $i) { ${S} } }`,
      { b: busA, s: survey, id: x.id, i: { sessionId: 'new', answers: [{ step: step.loc, value: 'y' }, ratings(), { step: step.nps, value: 0 }] } },
    );
    expect(up.updateSubmission).toMatchObject({ guestId: 'list-1', sessionId: 'new' });
    expect(up.updateSubmission.answers).toHaveLength(3);
    const bad = await a.error(
      `mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSubmissionInput!) { updateSubmission(business: $b, survey: $s, id: $id, input: $i) { id } }`,
      { b: busA, s: survey, id: x.id, i: { answers: [{ step: step.nps, value: 'ten' }] } },
    );
    expect(bad.code).toBe('BAD_USER_INPUT');
    expect(
      (await a.data(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSubmission(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: x.id }))
        .deleteSubmission,
    ).toBe(x.id);
    expect(
      (await a.error(`query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { id } }`, { b: busA, s: survey, id: x.id })).code,
    ).toBe('NOT_FOUND');
    const ev = await server.orm.em.fork().getConnection().execute(`select type from event where data->'object'->>'id' = ? order by id`, [x.id]);
    expect(ev.map((e: any) => e.type)).toEqual(['submission.created', 'submission.updated', 'submission.deleted']);
  });

  it('filters by the lowest metric rating, kept by the database through every change of the answers', async () => {
    const rated = (foodRating: number, serviceRating: number) => ({ step: step.rate, ratings: { [food]: foodRating, [service]: serviceRating } });
    const unhappy = await create({ answers: [{ step: step.loc, value: 'x' }, rated(2, 9)], guestId: 'low-1' });
    const happy = await create({ answers: [{ step: step.loc, value: 'x' }, rated(5, 10)], guestId: 'low-2' });
    const atMost = async (n: number) =>
      (
        await a.data(
          `query($b: ID!, $s: ID!, $n: Float!) { submissions(business: $b, survey: $s, where: {guestId: {contains: "low-"}, lowestRating: {lte: $n}}) { data { guestId } } }`,
          { b: busA, s: survey, n },
        )
      ).submissions.data.map((x: any) => x.guestId);
    expect(await atMost(2)).toEqual(['low-1']);
    expect(await atMost(5)).toEqual(['low-2', 'low-1']);
    // A changed answer moves it out of (and into) the filter.
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSubmissionInput!) { updateSubmission(business: $b, survey: $s, id: $id, input: $i) { id } }`, {
      b: busA,
      s: survey,
      id: unhappy.id,
      i: { answers: [{ step: step.loc, value: 'x' }, rated(4, 8)] },
    });
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSubmissionInput!) { updateSubmission(business: $b, survey: $s, id: $id, input: $i) { id } }`, {
      b: busA,
      s: survey,
      id: happy.id,
      i: { answers: [{ step: step.loc, value: 'x' }, rated(1, 10)] },
    });
    expect(await atMost(2)).toEqual(['low-2']);
    // The REST adapter takes the same filter from its query conventions.
    const res = await fetch(
      `${server.url}/v2/businesses/${busA}/surveys/${survey}/submissions?filters=${encodeURIComponent(JSON.stringify({ field: 'lowestRating', type: 'lte', value: 2 }))}`,
      { headers: headersA },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.map((x: any) => x.guestId)).toEqual(['low-2']);
  });

  it('keeps submissions when their survey is deleted', async () => {
    const s2 = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Short"}) { id } }`, { b: busA })).createSurvey.id;
    const sub = await create({ answers: [] }, a, busA, s2);
    await a.data(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id: s2 });
    const rows = await server.orm.em.fork().getConnection().execute(`select survey_id from submission where id = ?`, [sub.id]);
    expect(rows).toEqual([{ survey_id: null }]);
  });

  it("treats another business's survey and submission as NOT_FOUND", async () => {
    const theirSurvey = (await b.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "T"}) { id } }`, { b: busB })).createSurvey.id;
    const theirs = await create({ answers: [] }, b, busB, theirSurvey);
    expect(
      (await a.error(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, { b: busA, s: theirSurvey }))
        .code,
    ).toBe('NOT_FOUND');
    expect(
      (await a.error(`query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { id } }`, { b: busA, s: survey, id: theirs.id })).code,
    ).toBe('NOT_FOUND');
    expect(
      (await a.error(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSubmission(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: theirs.id }))
        .code,
    ).toBe('NOT_FOUND');
  });
});
