import fc from 'fast-check';
import type pg from 'pg';
import type { TestServer } from '../helpers/server.js';
import { useTwoTenants, type Client } from '../helpers/graphql.js';
import { createMetric, rawConnection, visitSurvey } from './analytics.fixtures.js';

/**
 * The rollups against the raw rows (issue 13): random submissions (ratings, NPS answers, locations in three time
 * zones, channels, days across both DST changes of March 2026), random updates and deletes, all written as SQL so the
 * trigger is the only thing keeping the rollups; then every answer of analyticsMetrics / analyticsNps equals the same
 * figure computed with SQL straight from the submissions. Then again with every metric on one scale, which lets
 * queries by location read the whole-location rows, and after a rated metric is deleted.
 */
let server: TestServer, a: Client, busA: string, sql: pg.Client;
let survey: string, food: string, service: string, drinks: string, nps: string, rate: string;
const locations: string[] = [];
const BASE = Date.UTC(2026, 2, 1); // 2026-03-01: US DST starts 03-08, EU 03-29
const DAY = 86_400_000;

useTwoTenants((t) => ({ server, a, busA } = t));
beforeAll(async () => {
  sql = await rawConnection(server.db.url);
  await sql.query(`update business set time_zone = 'America/New_York' where id = $1`, [busA]);
  let step: (input: object) => Promise<string>;
  ({ survey, step } = await visitSurvey(a, busA));
  food = await createMetric(a, busA);
  service = await createMetric(a, busA, '{name: "Service", scale: {min: 0, max: 20}}');
  // Rated in the submissions written as SQL below, by no step: so it can be deleted while rated.
  drinks = await createMetric(a, busA, '{name: "Drinks", scale: {min: 0, max: 20}}');
  rate = await step({ type: 'metrics', metrics: { metrics: [food, service] } });
  nps = await step({ type: 'nps' });
  for (const [name, timeZone] of [
    ['Karachi', 'Asia/Karachi'],
    ['London', 'Europe/London'],
    ['Default', null],
  ] as const) {
    const d = await a.data(`mutation($b: ID!, $i: CreateLocationInput!) { createLocation(business: $b, input: $i) { id timeZone } }`, {
      b: busA,
      i: { name, timeZone },
    });
    expect(d.createLocation.timeZone).toBe(timeZone);
    locations.push(d.createLocation.id);
  }
});
afterAll(() => sql?.end());

interface Written {
  food?: number;
  service?: number;
  drinks?: number;
  nps?: number;
  location: number;
  channel: string | null;
}

const writtenArb = fc.record({
  food: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  service: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }), // above 10: the wide-histogram path
  drinks: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
  nps: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  location: fc.integer({ min: 0, max: 3 }),
  channel: fc.constantFrom(null, 'qr', 'sms'),
});
const createArb = fc.record({ kind: fc.constant('create' as const), w: writtenArb, at: fc.integer({ min: 0, max: 40 * DAY }), partial: fc.boolean() });
const opArb = fc.oneof(
  createArb,
  fc.record({ kind: fc.constant('update' as const), w: writtenArb, pick: fc.nat() }),
  // The guest's next step: the same buckets, new answers (the trigger moves only the subjects whose values changed).
  fc.record({ kind: fc.constant('answer' as const), w: writtenArb, text: fc.boolean(), pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);
const queryArb = fc.record({
  // Half the ranges start before March: with a month of length or more they hold all of March, read from its month rows.
  from: fc.oneof(fc.integer({ min: -2 * DAY, max: 42 * DAY }), fc.integer({ min: -2 * DAY, max: 0 })),
  length: fc.integer({ min: 1, max: 44 * DAY }),
  interval: fc.constantFrom('day', 'week', 'month', 'total'),
  groupBy: fc.subarray(['location', 'survey', 'channel']),
  byMetric: fc.boolean(),
});

function answers(w: Written, text = false) {
  const ratings: Record<string, number> = {};
  if (w.food !== undefined) ratings[food] = w.food;
  if (w.service !== undefined) ratings[service] = w.service;
  if (w.drinks !== undefined) ratings[drinks] = w.drinks;
  const out: object[] = [{ step: rate, ratings }];
  if (w.nps !== undefined) out.push({ step: nps, value: w.nps });
  if (text) out.push({ step: 'stp_TEXT', value: 'no rating in a text answer' });
  return JSON.stringify(out);
}
const locationOf = (w: Written) => (w.location < 3 ? locations[w.location] : null);

let seq = 0;
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
async function apply(ops: Op[], ids: string[]) {
  for (const op of ops) {
    if (op.kind === 'create') {
      const id = `sub_PROP${String(seq++).padStart(22, '0')}`;
      await sql.query(
        `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, location_id, status, source, channel)
         values ($1, $2, now(), $3, $4, $5, '{}', $6, $7, 'page', $8)`,
        [id, new Date(BASE + op.at), busA, survey, answers(op.w), locationOf(op.w), op.partial ? 'partial' : 'completed', op.w.channel],
      );
      ids.push(id);
    } else if (ids.length) {
      const id = ids[op.pick % ids.length];
      if (op.kind === 'update') {
        await sql.query(`update submission set answers = $2, location_id = $3, channel = $4 where id = $1`, [
          id,
          answers(op.w),
          locationOf(op.w),
          op.w.channel,
        ]);
      } else if (op.kind === 'answer') {
        await sql.query(`update submission set answers = $2 where id = $1`, [id, answers(op.w, op.text)]);
      } else {
        await sql.query(`delete from submission where id = $1`, [id]);
        ids.splice(ids.indexOf(id), 1);
      }
    }
  }
}

const KEY_SQL: Record<string, string> = { metric: 'metric', location: 'location', survey: 'survey', channel: 'channel', step: 'metric' };
const BUCKET_SQL: Record<string, string> = {
  day: 'day',
  week: "date_trunc('week', day)::date",
  month: "date_trunc('month', day)::date",
  total: '$2::date',
};

type Query = { from: number; to: number; interval: string; groupBy: string[] };

/** The same figures straight from the submissions: the oracle. `days`: the local days read, when not q's own. */
async function raw(kind: 'metric' | 'nps', q: Query, days = rangeDays(q)) {
  const keys = q.groupBy.map((k) => KEY_SQL[k]);
  const select = keys.map((k) => `nullif(${k}, '') as ${k === 'metric' && kind === 'nps' ? 'step' : k}`);
  const groups = [...keys, 'bucket'].join(', ');
  const values =
    kind === 'metric'
      ? `select r.key as metric, r.value::int as v from jsonb_array_elements(s.answers) a, jsonb_each_text(a->'ratings') r
          where jsonb_typeof(a->'ratings') = 'object' and exists (select 1 from metric m where m.id = r.key)`
      : `select a->>'step' as metric, (a->>'value')::int as v from jsonb_array_elements(s.answers) a where a->>'step' = '${nps}'`;
  const { rows } = await sql.query(
    `with rt as (
       select coalesce(s.survey_id, '') as survey, coalesce(s.location_id, '') as location, coalesce(s.channel, '') as channel,
              (s.created_at at time zone coalesce(l.time_zone, b.time_zone, 'UTC'))::date as day, x.metric, x.v
         from submission s join business b on b.id = s.business_id left join location l on l.id = s.location_id,
              lateral (${values}) x
        where s.business_id = $1
     ), b as (
       select rt.*, ${BUCKET_SQL[q.interval]} as bucket from rt
        where day between $2::date and $3::date
     )
     select ${[...select, `(extract(epoch from bucket::timestamp at time zone 'America/New_York') * 1000)::bigint as period`, 'bucket::text as bucket'].join(', ')},
            count(*)::int as count, avg(v)::float8 as mean, stddev_samp(v)::float8 as stddev,
            percentile_disc(0.5) within group (order by v) as median, percentile_disc(0.25) within group (order by v) as p25,
            percentile_disc(0.75) within group (order by v) as p75,
            count(*) filter (where v between (select m.scale_max - 1 from metric m where m.id = b.metric) and (select m.scale_max from metric m where m.id = b.metric))::int as top,
            count(*) filter (where v >= 9)::int as promoters, count(*) filter (where v <= 6)::int as detractors
       from b group by ${groups}`,
    [busA, ...days],
  );
  return rows;
}
const localNY = (ms: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
const rangeDays = (q: Query) => [localNY(q.from), localNY(q.to - 1)];

const dayNo = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY;
const dayOf = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
/**
 * compare=previous's pairing, as docs/analytics.md says it: the previous period is the same number of days just before
 * the range, and a bucket pairs with the bucket at the same place in it (the same day, week or month counted from the
 * start, or the whole of it). Answers the previous period's days and, for a bucket, its place.
 */
function previousPeriod(q: Query) {
  const [fromDay, lastDay] = rangeDays(q);
  const length = dayNo(lastDay) - dayNo(fromDay) + 1;
  const days = [dayOf(dayNo(fromDay) - length), dayOf(dayNo(fromDay) - 1)];
  const monthNo = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  const mondayNo = (day: string) => dayNo(day) - ((new Date(dayNo(day) * DAY).getUTCDay() + 6) % 7);
  const place = (start: string, bucket: string) =>
    q.interval === 'day'
      ? dayNo(bucket) - dayNo(start)
      : q.interval === 'week'
        ? (dayNo(bucket) - mondayNo(start)) / 7
        : q.interval === 'month'
          ? monthNo(bucket) - monthNo(start)
          : 0;
  return { days, placeNow: (bucket: string) => place(fromDay, bucket), placeBefore: (bucket: string) => place(days[0], bucket) };
}

const sortKey = (r: Record<string, unknown>) =>
  JSON.stringify([r.metric ?? r.step ?? null, r.location ?? null, r.survey ?? null, r.channel ?? null, Number(r.period)]);
const sorted = (rows: Record<string, any>[]) => [...rows].sort((x, y) => sortKey(x).localeCompare(sortKey(y)));

/** What the API answers for `q` (`field` is analyticsMetrics or analyticsNps), in the oracle's order. */
async function served(field: 'analyticsMetrics' | 'analyticsNps', selection: string, q: Query, compare: 'previous' | null = null) {
  const got = await a.data(
    `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $i: AnalyticsInterval!, $g: [AnalyticsGroupBy!]!, $c: AnalyticsCompare) {
      ${field}(business: $b, from: $from, to: $to, interval: $i, groupBy: $g, compare: $c) { ${selection} } }`,
    { b: busA, from: q.from, to: q.to, i: q.interval, g: q.groupBy, c: compare },
  );
  // As docs/analytics.md says: ordered by the groupBy keys in their order (character by character), then by period.
  const order = (row: Record<string, any>) => [...q.groupBy.map((k) => row[k] ?? ''), row.period];
  const inOrder = (x: Record<string, any>, y: Record<string, any>) => {
    const [a, b] = [order(x), order(y)];
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
  };
  expect(got[field]).toEqual([...got[field]].sort(inOrder));
  return sorted(got[field]);
}
const close = (x: number | null, y: number | null) => (x === null || y === null ? x === y : Math.abs(x - y) < 1e-9);

/** Random writes, then random queries, each answer equal to the oracle's; `ids` are the submissions written so far. */
async function rollupsEqualRawRows(ids: string[], numRuns: number, seed: number) {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (ops, queries) => {
      await apply(ops, ids);
      for (const g of queries) {
        const q = { from: BASE + g.from, to: BASE + g.from + g.length, interval: g.interval, groupBy: [...(g.byMetric ? ['metric'] : []), ...g.groupBy] };
        const expected = sorted(await raw('metric', q));
        const previous = previousPeriod(q);
        const groupKey = (r: Record<string, unknown>) => JSON.stringify([r.metric ?? null, r.location ?? null, r.survey ?? null, r.channel ?? null]);
        const before = new Map((await raw('metric', q, previous.days)).map((r) => [`${groupKey(r)} ${previous.placeBefore(r.bucket)}`, r]));
        const figures = 'period count mean stddev median p25 p75 csat';
        const rows = await served('analyticsMetrics', `metric location survey channel ${figures} distribution previous { ${figures} }`, q, 'previous');
        expect(rows.map(sortKey)).toEqual(expected.map(sortKey));
        rows.forEach((row, i) => {
          const e = expected[i];
          const p = before.get(`${groupKey(e)} ${previous.placeNow(e.bucket)}`);
          if (!p) expect(row.previous).toBeNull();
          else {
            expect([row.previous.period, row.previous.count, row.previous.median]).toEqual([Number(p.period), p.count, p.median]);
            expect(close(row.previous.mean, p.mean)).toBe(true);
            expect(close(row.previous.csat, p.top / p.count)).toBe(true);
          }
          expect(row.count).toBe(e.count);
          expect([row.median, row.p25, row.p75]).toEqual([e.median, e.p25, e.p75]);
          expect(close(row.mean, e.mean)).toBe(true);
          expect(close(row.stddev, e.stddev)).toBe(true);
          expect(Object.values(row.distribution as Record<string, number>).reduce((s, n) => s + n, 0)).toBe(e.count);
          expect(close(row.csat, e.top / e.count)).toBe(true);
        });

        const npsQ = { ...q, groupBy: q.groupBy.map((k) => (k === 'metric' ? 'step' : k)) };
        const expectedNps = sorted(await raw('nps', npsQ));
        const npsRows = await served('analyticsNps', 'step location survey channel period count promoters passives detractors score', npsQ);
        expect(npsRows.map(sortKey)).toEqual(expectedNps.map(sortKey));
        npsRows.forEach((row, i) => {
          const e = expectedNps[i];
          expect([row.count, row.promoters, row.detractors, row.passives]).toEqual([e.count, e.promoters, e.detractors, e.count - e.promoters - e.detractors]);
          expect(close(row.score, ((e.promoters - e.detractors) / e.count) * 100)).toBe(true);
        });
      }
    }),
    { numRuns, seed },
  );
}

describe('analytics rollups equal the raw rows', () => {
  it('after random creates, updates and deletes, for random queries', async () => {
    const ids: string[] = [];
    await rollupsEqualRawRows(ids, 12, 13);

    // Every metric on one scale (0 to 20): queries grouped by location alone read the whole-location rows. A hundred
    // more responses first, so that their buckets hold many ratings of every value.
    await apply(fc.sample(createArb, { numRuns: 100, seed: 16 }), ids);
    await a.data(`mutation($b: ID!, $id: ID!) { updateMetric(business: $b, id: $id, input: {scale: {min: 0, max: 20}}) { id } }`, { b: busA, id: food });
    await rollupsEqualRawRows(ids, 8, 14);
    // A rated metric deleted: its ratings leave every figure, as they leave the detailed rows' join.
    await a.data(`mutation($b: ID!, $id: ID!) { deleteMetric(business: $b, id: $id) }`, { b: busA, id: drinks });
    await rollupsEqualRawRows(ids, 8, 15);

    // Deleting everything leaves every bucket at zero: removals undo additions exactly.
    await sql.query(`delete from submission where business_id = $1`, [busA]);
    const { rows } = await sql.query(
      `select count(*)::int as n from analytics_rollup where business_id = $1 and (count <> 0 or sum <> 0 or sum_sq <> 0 or exists (select 1 from unnest(array[h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10] || hist_high) h where h <> 0))`,
      [busA],
    );
    expect(rows[0].n).toBe(0);
    // ...and a bucket left at zero is no bucket: none shows, whether read as stored (daily, by every key the rows have)
    // or summed.
    for (const groupBy of [['location'], ['metric', 'location', 'survey', 'channel'], ['survey'], []]) {
      for (const interval of ['day', 'month']) {
        const q = { from: BASE - 2 * DAY, to: BASE + 44 * DAY, interval, groupBy };
        expect(await served('analyticsMetrics', 'period count', q)).toEqual([]);
        expect(await served('analyticsNps', 'period count', { ...q, groupBy: groupBy.map((k) => (k === 'metric' ? 'step' : k)) })).toEqual([]);
      }
    }
  });
});
