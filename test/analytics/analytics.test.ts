import type pg from 'pg';
import type { TestServer } from '../helpers/server.js';
import { sleep, useTwoTenants, type Client } from '../helpers/graphql.js';
import { GuestAgent, guestSurvey } from '../helpers/guest.js';
import type { Tenant } from '../helpers/auth.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { rebuildAnalytics } from '../../src/modules/analytics/analytics-rebuild.service.js';
import { ratedVisit } from './analytics.fixtures.js';

/** Analytics over the API: writes through GraphQL, concurrency, compare, response rate, menu items, funnel, bad input. */
let server: TestServer, a: Client, busA: string, sql: pg.Client, ta: Tenant;
let survey: string, food: string, rate: string, nps: string, text: string, karachi: string;
const DAY = 86_400_000;

useTwoTenants((t) => ({ server, a, busA, ta } = t));
beforeAll(async () => {
  let step: (input: object) => Promise<string>;
  ({ sql, survey, step, food, rate } = await ratedVisit(server.db.url, a, busA));
  nps = await step({ type: 'nps' });
  text = await step({ type: 'text' });
  karachi = (await a.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "Karachi", timeZone: "Asia/Karachi"}) { id } }`, { b: busA }))
    .createLocation.id;
});
afterAll(() => sql?.end());

const submit = (food4: number, extra: object = {}) =>
  a
    .data(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
      b: busA,
      s: survey,
      i: { answers: [{ step: rate, ratings: { [food]: food4 } }], ...extra },
    })
    .then((d) => d.createSubmission.id as string);

const M = 'metric location survey channel period count mean stddev median p25 p75 distribution csat';
const metrics = (args: Record<string, unknown>, fields = M) =>
  a
    .data(
      `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $i: AnalyticsInterval, $g: [AnalyticsGroupBy!], $m: ID, $l: ID, $c: AnalyticsCompare) {
      analyticsMetrics(business: $b, from: $from, to: $to, interval: $i, groupBy: $g, metric: $m, location: $l, compare: $c) { ${fields} } }`,
      { b: busA, ...args },
    )
    .then((d) => d.analyticsMetrics);
const today = () => ({ from: Date.now() - DAY, to: Date.now() + DAY, i: 'total' });

describe('analytics', () => {
  it('follows API creates, updates and deletes of submissions in their transaction', async () => {
    const first = await submit(5);
    const second = await submit(2);
    expect(await metrics({ ...today(), g: ['metric'] })).toEqual([
      expect.objectContaining({ metric: food, count: 2, mean: 3.5, median: 2, p25: 2, p75: 5, csat: 0.5, distribution: { 1: 0, 2: 1, 3: 0, 4: 0, 5: 1 } }),
    ]);
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSubmissionInput!) { updateSubmission(business: $b, survey: $s, id: $id, input: $i) { id } }`, {
      b: busA,
      s: survey,
      id: second,
      i: { answers: [{ step: rate, ratings: { [food]: 4 } }] },
    });
    expect((await metrics({ ...today() }))[0]).toMatchObject({ count: 2, mean: 4.5, csat: 1 });
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSubmission(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: first });
    expect((await metrics({ ...today() }))[0]).toMatchObject({ count: 1, mean: 4, stddev: null });
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSubmission(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: second });
    expect(await metrics({ ...today() })).toEqual([]);
  });

  it('stays exact with 50 submissions written at once to the same bucket', async () => {
    const values = Array.from({ length: 50 }, (_, i) => (i % 5) + 1);
    await Promise.all(values.map((v) => submit(v, { location: karachi })));
    const [row] = await metrics({ ...today(), g: ['location'] });
    expect(row).toMatchObject({ location: karachi, count: 50, mean: 3, distribution: { 1: 10, 2: 10, 3: 10, 4: 10, 5: 10 } });
    const { rows } = await sql.query(
      `select grain, count, sum, sum_sq, array[h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10] as low, hist_high from analytics_rollup
        where business_id = $1 and location_id = $2 order by grain`,
      [busA, karachi],
    );
    // The day's row and its month's row, and the location's own day and month rows (every metric, survey and channel):
    // each with all 50.
    const exact = { count: 50, sum: '150', sum_sq: String(values.reduce((s, v) => s + v * v, 0)), low: [0, 10, 10, 10, 10, 10, 0, 0, 0, 0, 0], hist_high: [] };
    expect(rows).toEqual([
      { grain: 'day', ...exact },
      { grain: 'lday', ...exact },
      { grain: 'lmon', ...exact },
      { grain: 'month', ...exact },
    ]);
  });

  it('moves ratings to the business day when their location is deleted, and compares with the previous period', async () => {
    const loc = (await a.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "Far", timeZone: "Pacific/Kiritimati"}) { id } }`, { b: busA }))
      .createLocation.id;
    // "Today" is the day in Karachi (UTC+5, no DST) of the 50 ratings above: after 19:00 UTC it is tomorrow in UTC.
    const karachiNow = new Date(Date.now() + 5 * 3_600_000);
    const midnight = Date.UTC(karachiNow.getUTCFullYear(), karachiNow.getUTCMonth(), karachiNow.getUTCDate());
    const id = await submit(3, { location: loc });
    await sql.query(`update submission set created_at = to_timestamp($2 / 1000.0) where id = $1`, [id, midnight - DAY / 2]);
    const { rows: before } = await sql.query(`select analytics_day::text as day from submission where id = $1`, [id]);
    await a.data(`mutation($b: ID!, $id: ID!) { deleteLocation(business: $b, id: $id) }`, { b: busA, id: loc });
    const { rows: after } = await sql.query(`select analytics_day::text as day, location_id from submission where id = $1`, [id]);
    expect(after[0].location_id).toBeNull();
    expect(after[0].day).not.toBe(before[0].day); // UTC+14 and UTC disagree on that day
    const { rows: stale } = await sql.query(`select count(*)::int as n from analytics_rollup where business_id = $1 and location_id = $2 and count <> 0`, [
      busA,
      loc,
    ]);
    expect(stale[0].n).toBe(0);

    const [row] = await metrics({ from: midnight, to: midnight + DAY, i: 'total', c: 'previous' }, 'count mean previous { count mean period }');
    expect(row).toMatchObject({ count: 50, previous: { count: 1, mean: 3, period: midnight - DAY } });
  });

  it('counts NPS answers and partial responses', async () => {
    await a.data(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
      b: busA,
      s: survey,
      i: {
        answers: [
          { step: nps, value: 10 },
          { step: text, value: '7' },
        ],
      },
    });
    await sql.query(
      `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, status, source)
       values ('sub_PARTIAL0000000000000000001', now(), now(), $1, $2, $3, '{}', 'partial', 'page')`,
      [busA, survey, JSON.stringify([{ step: nps, value: 3 }])],
    );
    const d = await a.data(
      `query($b: ID!, $from: Timestamp!, $to: Timestamp!) {
      analyticsNps(business: $b, from: $from, to: $to, interval: total, groupBy: [step]) { step count promoters passives detractors score } }`,
      { b: busA, from: Date.now() - DAY, to: Date.now() + DAY },
    );
    expect(d.analyticsNps).toEqual([{ step: nps, count: 2, promoters: 1, passives: 0, detractors: 1, score: 0 }]);
  });

  it('answers the response rate, menu items and the funnel', async () => {
    const order = (externalOrderId: string, items: object[]) =>
      a
        .data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id items { menuItem { id } } } }`, {
          b: busA,
          i: { externalOrderId, total: 10, currency: 'PKR', items },
        })
        .then((d) => d.createOrder);
    const karahi = await order('R-1', [{ name: 'Karahi' }, { name: 'Naan' }]);
    await order('R-2', [{ name: 'Naan' }]);
    await submit(5, { order: karahi.id });
    const rr = await a.data(
      `query($b: ID!, $from: Timestamp!, $to: Timestamp!) { analyticsResponseRate(business: $b, from: $from, to: $to, interval: total) { orders answered rate } }`,
      { b: busA, from: Date.now() - DAY, to: Date.now() + DAY },
    );
    expect(rr.analyticsResponseRate).toEqual([{ orders: 2, answered: 1, rate: 0.5 }]);

    const mi = await a.data(
      `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $m: ID) {
      analyticsMenuItems(business: $b, from: $from, to: $to, metric: $m, minCount: 1) { menuItem name metric count mean shrunkMean } }`,
      { b: busA, from: Date.now() - DAY, to: Date.now() + DAY, m: food },
    );
    expect(mi.analyticsMenuItems.map((r: { name: string; count: number; mean: number }) => [r.name, r.count, r.mean])).toEqual([
      ['Karahi', 1, 5],
      ['Naan', 1, 5],
    ]);

    await sql.query(
      `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, status, source)
       values ('sub_PARTIAL0000000000000000002', now(), now(), $1, $2, $3, '{}', 'partial', 'page')`,
      [busA, survey, JSON.stringify([{ step: rate, ratings: { [food]: 1 } }])],
    );
    const f = await a.data(
      `query($b: ID!, $s: ID!, $from: Timestamp!, $to: Timestamp!) { analyticsFunnel(business: $b, survey: $s, from: $from, to: $to) { step reached answered droppedOff } }`,
      { b: busA, s: survey, from: Date.now() - DAY, to: Date.now() + DAY },
    );
    const byStep = Object.fromEntries(f.analyticsFunnel.map((r: { step: string }) => [r.step, r]));
    // One partial response stopped after rating (at the NPS step), the other after its NPS answer (at the text step).
    expect([byStep[nps].droppedOff, byStep[text].droppedOff, byStep[rate].droppedOff]).toEqual([1, 1, 0]);
    expect(byStep[rate].reached - byStep[nps].reached).toBe(0);
    expect(byStep[nps].reached - byStep[text].reached).toBe(1);
  });

  it("answers the response rate by the orders' location and channel, and for one location", async () => {
    const clifton = (await a.data(`mutation($b: ID!) { createLocation(business: $b, input: {name: "Clifton", metadata: {pos: "CL-1"}}) { id } }`, { b: busA }))
      .createLocation.id;
    const order = (externalOrderId: string, channel: string) =>
      a
        .data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
          b: busA,
          i: { externalOrderId, externalLocationId: 'CL-1', channel, total: 10, currency: 'PKR' },
        })
        .then((d) => d.createOrder.id as string);
    const web = await order('G-1', 'WEBSITE');
    await order('G-2', 'WEBSITE');
    await order('G-3', 'FOODPANDA');
    await submit(4, { order: web });
    const range = { b: busA, from: Date.now() - DAY, to: Date.now() + DAY };
    const rr = (args: Record<string, unknown>) =>
      a
        .data(
          `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $g: [AnalyticsGroupBy!], $l: ID, $c: String) {
        analyticsResponseRate(business: $b, from: $from, to: $to, interval: total, groupBy: $g, location: $l, channel: $c) { location channel orders answered rate } }`,
          { ...range, ...args },
        )
        .then((d) => d.analyticsResponseRate);
    const grouped = await rr({ g: ['location', 'channel'] });
    expect(grouped.filter((r: { location: string }) => r.location === clifton)).toEqual([
      { location: clifton, channel: 'FOODPANDA', orders: 1, answered: 0, rate: 0 },
      { location: clifton, channel: 'WEBSITE', orders: 2, answered: 1, rate: 0.5 },
    ]);
    // Every order counted once across the groups: the same totals as ungrouped.
    const [all] = await rr({});
    expect(grouped.reduce((n: number, r: { orders: number }) => n + r.orders, 0)).toBe(all.orders);
    expect(await rr({ l: clifton })).toEqual([{ location: null, channel: null, orders: 3, answered: 1, rate: 1 / 3 }]);
    expect(await rr({ c: 'FOODPANDA', g: ['channel'] })).toEqual([{ location: null, channel: 'FOODPANDA', orders: 1, answered: 0, rate: 0 }]);
    const restAnswer = await rest(
      server,
      'GET',
      `/v2/businesses/${busA}/analytics/response-rate?from=${range.from}&to=${range.to}&interval=total&groupBy=channel&location=${clifton}`,
      { tenant: ta },
    );
    expect(restAnswer.status).toBe(200);
    expect(restAnswer.body.data.map((r: { channel: string; orders: number }) => [r.channel, r.orders])).toEqual([
      ['FOODPANDA', 1],
      ['WEBSITE', 2],
    ]);
    const bad = await rest(server, 'GET', `/v2/businesses/${busA}/analytics/response-rate?from=${range.from}&to=${range.to}&groupBy=metric`, { tenant: ta });
    expectError(bad, 400);
    expect(bad.body.error.details).toEqual([{ field: 'groupBy', message: "'metric' is not one of location, channel" }]);
  });

  it('times each step on the survey page, and the funnel gives the median per step (the API never shows the timing)', async () => {
    const fx = await guestSurvey(server, {
      steps: [
        ['nps', { type: 'nps', required: true }],
        ['text', { type: 'text' }],
      ],
    });
    for (const wait of [300, 600, 900]) {
      const guest = new GuestAgent(server.url);
      const first = await guest.get(fx.path);
      await sleep(wait);
      const { next } = await guest.answer(first, { value: '9' });
      await guest.answer(next, { value: 'Fine' });
    }
    const { rows } = await sql.query(
      `select e->>'step' as step, (e->>'spentMs')::int as spent from submission s, jsonb_array_elements(s.answers) e where s.survey_id = $1 order by spent`,
      [fx.survey],
    );
    const spent = (step: string) => rows.filter((r) => r.step === step).map((r) => r.spent as number);
    expect(spent(fx.steps.nps)).toHaveLength(3);
    spent(fx.steps.nps).forEach((ms, i) => expect(ms).toBeGreaterThanOrEqual([300, 600, 900][i]));
    const f = await fx.c.data(
      `query($b: ID!, $s: ID!, $from: Timestamp!, $to: Timestamp!) { analyticsFunnel(business: $b, survey: $s, from: $from, to: $to) { step answered medianSeconds } }`,
      { b: fx.business, s: fx.survey, from: Date.now() - DAY, to: Date.now() + DAY },
    );
    const seconds = (ms: number) => Math.round(ms / 100) / 10;
    expect(f.analyticsFunnel).toEqual([
      { step: fx.steps.nps, answered: 3, medianSeconds: seconds(spent(fx.steps.nps)[1]) },
      { step: fx.steps.text, answered: 3, medianSeconds: seconds(spent(fx.steps.text)[1]) },
    ]);
    const listed = await fx.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s) { data { answers { step value ratings } } } }`, {
      b: fx.business,
      s: fx.survey,
    });
    expect(Object.keys(listed.submissions.data[0].answers[0])).toEqual(['step', 'value', 'ratings']);
  });

  it('answers 400s for bad input', async () => {
    const err = (args: Record<string, unknown>) =>
      a.error(
        `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $i: AnalyticsInterval, $m: ID) { analyticsMetrics(business: $b, from: $from, to: $to, interval: $i, metric: $m) { count } }`,
        { b: busA, ...args },
      );
    expect(await err({ from: 2000, to: 1000 })).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'from', message: 'must be before to' }] });
    expect(await err({ from: 0, to: 401 * DAY, i: 'day' })).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'interval' }] });
    expect((await err({ from: 0, to: 401 * DAY, i: 'month', m: 'mtr_01KNOTAMETRIC0000000000000' })).details).toEqual([
      { field: 'metric', message: expect.stringContaining('not a metric') },
    ]);
    const bad = await a.error(`mutation($b: ID!) { createLocation(business: $b, input: {name: "X", timeZone: "Mars/Olympus"}) { id } }`, { b: busA });
    expect(bad).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'timeZone' }] });
    const offset = await a.error(`mutation($b: ID!, $id: ID!) { updateLocation(business: $b, id: $id, input: {timeZone: "+05:00"}) { id } }`, {
      b: busA,
      id: karachi,
    });
    expect(offset).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'timeZone' }] });
  });

  it('answers the same over REST, as JSON or CSV, with 400s for bad parameters', async () => {
    const base = `/v2/businesses/${busA}/analytics`;
    const range = `from=${Date.now() - DAY}&to=${Date.now() + DAY}`;
    const json = await rest(server, 'GET', `${base}/metrics?${range}&interval=total&groupBy=metric,location`, { tenant: ta });
    expect(json.status).toBe(200);
    expect(json.body.object).toBe('list');
    const karachiRow = json.body.data.find((r: { location: string }) => r.location === karachi);
    expect(karachiRow).toMatchObject({ metric: food, count: 50, mean: 3, distribution: { 1: 10, 5: 10 } });
    const gql = await metrics({ from: Date.now() - DAY, to: Date.now() + DAY, i: 'total', g: ['metric', 'location'] }, 'location count mean');
    expect(json.body.data.map((r: { location: string; count: number }) => [r.location, r.count]).sort()).toEqual(
      gql.map((r: { location: string; count: number }) => [r.location, r.count]).sort(),
    );

    for (const headers of [{ accept: 'text/csv' }, {}] as Record<string, string>[]) {
      const res = await fetch(`${server.url}${base}/metrics?${range}&interval=total&groupBy=location${'accept' in headers ? '' : '&format=csv'}`, {
        headers: { ...ta.headers, ...headers },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = (await res.text()).trim().split('\r\n');
      expect(lines[0].split(',')).toEqual(expect.arrayContaining(['location', 'period', 'count', 'mean', 'distribution.1', 'distribution.5', 'csat']));
      expect(lines.length).toBe(1 + new Set(json.body.data.map((r: { location: string }) => r.location)).size); // one metric: a row per location
    }

    for (const [path, field] of [
      [`metrics?from=2000&to=1000`, 'from'],
      [`metrics?from=0&to=${401 * DAY}&interval=day`, 'interval'],
      [`metrics?${range}&groupBy=metric,dish`, 'groupBy'],
      [`metrics?${range}&groupBy=step`, 'groupBy'],
      [`metrics?${range}&metric=mtr_01KNOTAMETRIC0000000000000`, 'metric'],
      [`metrics?from=yesterday&to=1000`, 'from'],
      [`metrics?to=1000`, 'from'],
      [`funnel?${range}`, 'survey'],
      [`menu-items?${range}&minCount=0`, 'minCount'],
    ]) {
      const answer = await rest(server, 'GET', `${base}/${path}`, { tenant: ta });
      expectError(answer, 400);
      expect(answer.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    expectError(await rest(server, 'GET', `${base}/metrics?${range}&sorts=x`, { tenant: ta }), 400);
    const badZone = await rest(server, 'POST', `/v2/businesses/${busA}/locations`, { tenant: ta, body: { name: 'Mars', timeZone: 'Mars/Olympus' } });
    expectError(badZone, 400, 'validation_failed');
    const zoned = await rest(server, 'POST', `/v2/businesses/${busA}/locations`, { tenant: ta, body: { name: 'Lahore', timeZone: 'Asia/Karachi' } });
    expect(zoned.body.data).toMatchObject({ name: 'Lahore', timeZone: 'Asia/Karachi' });
  });

  it('rebuilds the rollups from the submissions to the same figures, while submissions keep arriving', async () => {
    const snapshot = async () =>
      (
        await sql.query(
          `select grain, day::text, subject, location_id, survey_id, channel, count, sum, sum_sq, array[h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10] || hist_high as hist
             from analytics_rollup where business_id = $1 and count <> 0 order by 1, 2, 3, 4, 5, 6`,
          [busA],
        )
      ).rows.map((r) => {
        const hist = [...r.hist];
        while (hist.length && hist.at(-1) === 0) hist.pop();
        return { ...r, hist };
      });
    // Rows written before the rollups existed have no day and no contribution yet.
    await sql.query(`alter table submission disable trigger analytics_submission_day`);
    await sql.query(`alter table submission disable trigger analytics_submission_change`);
    await sql.query(
      `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, status, source)
       values ('sub_OLD00000000000000000000001', now(), now(), $1, $2, $3, '{}', 'completed', 'api')`,
      [busA, survey, JSON.stringify([{ step: rate, ratings: { [food]: 1 } }])],
    );
    await sql.query(`alter table submission enable trigger analytics_submission_day`);
    await sql.query(`alter table submission enable trigger analytics_submission_change`);
    const before = await snapshot();
    const [rebuilt] = await Promise.all([rebuildAnalytics(server.orm.em.fork(), busA), ...Array.from({ length: 20 }, (_, i) => submit((i % 5) + 1))]);
    expect(rebuilt[0]).toMatchObject({ business: busA, daysRecomputed: 1 });
    const during = await snapshot();
    await rebuildAnalytics(server.orm.em.fork(), busA);
    expect(await snapshot()).toEqual(during);
    // Each grain counts every rating once: the old row's and the 20 written during the rebuild are in both.
    const count = (rows: Array<{ grain: string; count: number }>, grain: string) => rows.filter((r) => r.grain === grain).reduce((n, r) => n + r.count, 0);
    for (const grain of ['day', 'month']) expect(count(during, grain)).toBe(count(before, grain) + 1 + 20);
  });
});
