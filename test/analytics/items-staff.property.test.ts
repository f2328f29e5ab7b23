import fc from 'fast-check';
import type pg from 'pg';
import type { TestServer } from '../helpers/server.js';
import { rebuildAnalytics } from '../../src/modules/analytics/analytics-rebuild.service.js';
import { useTwoTenants, type Client } from '../helpers/graphql.js';
import { ratedVisit } from './analytics.fixtures.js';

/**
 * Issue 36's figures against the raw rows: random submissions with dishes rated on an items step and metric ratings,
 * linked to orders of random servers (or none), on random days, with random answer changes, order relinks and
 * deletes, all written as SQL so the trigger is the only thing keeping the rollups. Then analyticsMenuItems'
 * `direct` rows and analyticsMetrics / analyticsNps grouped by staff equal the same figures computed straight from
 * the submissions (and the orders' metadata), over random ranges; groups under minCount are `insufficient` and unranked.
 */
let server: TestServer, a: Client, busA: string, sql: pg.Client;
let survey: string, food: string, rate: string, items: string, nps: string;
const dishes = ['mi_PROPDISH0000000000000000A', 'mi_PROPDISH0000000000000000B', 'mi_PROPDISH0000000000000000C'];
const orders: string[] = [];
const SERVERS = ['Ali', 'Sara', ' Zed ', ''];
const BASE = Date.UTC(2026, 4, 1);
const DAY = 86_400_000;

useTwoTenants((t) => ({ server, a, busA } = t));
beforeAll(async () => {
  let step: (input: object) => Promise<string>;
  ({ sql, survey, step, food, rate } = await ratedVisit(server.db.url, a, busA));
  items = await step({ type: 'items', content: { scale: '5' } });
  nps = await step({ type: 'nps' });
  for (const [i, id] of dishes.entries()) {
    await sql.query(`insert into menu_item (id, created_at, updated_at, business_id, name) values ($1, now(), now(), $2, $3)`, [id, busA, `Dish ${i}`]);
  }
  // One order per server (the last names none: its `server` is blank), and one with no metadata.
  for (const [i, name] of [...SERVERS, null].entries()) {
    const metadata = name === null ? {} : { server: name, table: String(i) };
    const d = await a.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id staff } }`, {
      b: busA,
      i: { externalOrderId: `P-${i}`, total: 10, currency: 'PKR', metadata },
    });
    expect(d.createOrder.staff).toBe(name?.trim() || null);
    orders.push(d.createOrder.id);
  }
});
afterAll(() => sql?.end());

const writtenArb = fc.record({
  dishes: fc.dictionary(fc.constantFrom(...dishes), fc.integer({ min: 1, max: 5 }), { maxKeys: 3 }),
  food: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  nps: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  order: fc.integer({ min: 0, max: SERVERS.length + 1 }),
});
type Written = typeof writtenArb extends fc.Arbitrary<infer T> ? T : never;
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), w: writtenArb, at: fc.integer({ min: 0, max: 20 * DAY }) }),
  fc.record({ kind: fc.constant('answer' as const), w: writtenArb, pick: fc.nat() }),
  fc.record({ kind: fc.constant('relink' as const), w: writtenArb, pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

function answers(w: Written) {
  const out: object[] = [{ step: rate, ratings: w.food === undefined ? {} : { [food]: w.food } }];
  if (Object.keys(w.dishes).length) out.push({ step: items, items: w.dishes });
  if (w.nps !== undefined) out.push({ step: nps, value: w.nps });
  return JSON.stringify(out);
}
const orderOf = (w: Written) => (w.order < orders.length ? orders[w.order] : null);

let seq = 0;
async function apply(ops: Op[], ids: string[]) {
  for (const op of ops) {
    if (op.kind === 'create') {
      const id = `sub_ITEMS${String(seq++).padStart(21, '0')}`;
      await sql.query(
        `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, order_id, status, source)
         values ($1, $2, now(), $3, $4, $5, '{}', $6, 'completed', 'api')`,
        [id, new Date(BASE + op.at), busA, survey, answers(op.w), orderOf(op.w)],
      );
      ids.push(id);
    } else if (ids.length) {
      const id = ids[op.pick % ids.length];
      if (op.kind === 'answer') await sql.query(`update submission set answers = $2 where id = $1`, [id, answers(op.w)]);
      else if (op.kind === 'relink') await sql.query(`update submission set order_id = $2 where id = $1`, [id, orderOf(op.w)]);
      else {
        await sql.query(`delete from submission where id = $1`, [id]);
        ids.splice(ids.indexOf(id), 1);
      }
    }
  }
}

const queryArb = fc.record({
  from: fc.integer({ min: -2 * DAY, max: 21 * DAY }),
  length: fc.integer({ min: 1, max: 25 * DAY }),
  minCount: fc.integer({ min: 1, max: 6 }),
});
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Direct dish ratings per menu item from the submissions themselves. */
async function rawDishes(from: number, to: number) {
  const { rows } = await sql.query(
    `select r.key as "menuItem", count(*)::int as count, sum(r.value::int)::float8 as sum
       from submission s, jsonb_array_elements(s.answers) a, jsonb_each_text(a->'items') r
      where s.business_id = $1 and jsonb_typeof(a->'items') = 'object' and (s.created_at at time zone 'UTC')::date between $2::date and $3::date
      group by 1 order by 1`,
    [busA, utcDay(from), utcDay(to - 1)],
  );
  return rows as Array<{ menuItem: string; count: number; sum: number }>;
}

/** Ratings per server (the orders' metadata `server`, trimmed) from the submissions themselves: food ratings or NPS answers. */
async function rawStaff(kind: 'metric' | 'nps', from: number, to: number) {
  const values =
    kind === 'metric'
      ? `select (a->'ratings'->>'${food}')::int as v from jsonb_array_elements(s.answers) a where a->'ratings' ? '${food}'`
      : `select (a->>'value')::int as v from jsonb_array_elements(s.answers) a where a->>'step' = '${nps}'`;
  const { rows } = await sql.query(
    `select nullif(btrim(o.metadata->>'server'), '') as staff, count(*)::int as count, avg(x.v)::float8 as mean,
            count(*) filter (where x.v >= 9)::int as promoters, count(*) filter (where x.v <= 6)::int as detractors
       from submission s left join customer_order o on o.id = s.order_id, lateral (${values}) x
      where s.business_id = $1 and (s.created_at at time zone 'UTC')::date between $2::date and $3::date
      group by 1`,
    [busA, utcDay(from), utcDay(to - 1)],
  );
  return rows as Array<{ staff: string | null; count: number; mean: number; promoters: number; detractors: number }>;
}

const byStaff = (x: { staff: string | null }, y: { staff: string | null }) => ((x.staff ?? '') < (y.staff ?? '') ? -1 : 1);

it('keeps direct dish figures and figures by staff exact against the raw rows', async () => {
  const ids: string[] = [];
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.array(queryArb, { minLength: 1, maxLength: 3 }), async (ops, queries) => {
      await apply(ops, ids);
      for (const q of queries) {
        const from = BASE + q.from;
        const to = from + q.length;
        const expected = await rawDishes(from, to);
        const totalN = expected.reduce((n, r) => n + r.count, 0);
        const overall = totalN ? expected.reduce((s, r) => s + r.sum, 0) / totalN : 0;
        const got = await a.data(
          `query($b: ID!, $f: Timestamp!, $t: Timestamp!, $m: Int!) { analyticsMenuItems(business: $b, from: $f, to: $t, minCount: $m, source: direct, sort: count, order: asc) { menuItem source metric count mean shrunkMean } }`,
          { b: busA, f: from, t: to, m: q.minCount },
        );
        const rows = [...got.analyticsMenuItems].sort((x: any, y: any) => (x.menuItem < y.menuItem ? -1 : 1));
        const wanted = expected.filter((r) => r.count >= q.minCount);
        expect(rows.map((r: any) => [r.menuItem, r.source, r.metric, r.count])).toEqual(wanted.map((r) => [r.menuItem, 'direct', null, r.count]));
        rows.forEach((r: any, i: number) => {
          expect(r.mean).toBeCloseTo(wanted[i].sum / wanted[i].count, 9);
          expect(r.shrunkMean).toBeCloseTo((wanted[i].sum + 10 * overall) / (wanted[i].count + 10), 9);
        });

        for (const kind of ['metric', 'nps'] as const) {
          const field = kind === 'metric' ? 'analyticsMetrics' : 'analyticsNps';
          const figure = kind === 'metric' ? 'mean' : 'score';
          const served = await a.data(
            `query($b: ID!, $f: Timestamp!, $t: Timestamp!, $m: Int!) { ${field}(business: $b, from: $f, to: $t, interval: total, groupBy: [staff], minCount: $m) { staff count ${figure} insufficient rank } }`,
            { b: busA, f: from, t: to, m: q.minCount },
          );
          const raw = (await rawStaff(kind, from, to)).sort(byStaff);
          const got = [...served[field]].sort(byStaff);
          expect(got.map((r: any) => [r.staff, r.count, r.insufficient])).toEqual(raw.map((r) => [r.staff, r.count, r.count < q.minCount]));
          const score = (r: (typeof raw)[number]) => (kind === 'metric' ? r.mean : ((r.promoters - r.detractors) / r.count) * 100);
          got.forEach((r: any, i: number) => {
            expect(r[figure]).toBeCloseTo(score(raw[i]), 9);
            const peers = raw.filter((p) => p.count >= q.minCount);
            const better = peers.filter((p) => score(p) > score(raw[i]) + 1e-9).length;
            expect(r.rank).toBe(raw[i].count < q.minCount ? null : better + 1);
          });
        }
      }
    }),
    { numRuns: 25 },
  );
  // Recounted from scratch (admin rebuild-analytics), the rollups are the same rows.
  const rows = async () => ({
    menu: (
      await sql.query(
        `select day::text, subject, menu_item_id, count, sum, sum_sq from analytics_menu_rollup where business_id = $1 and count <> 0 order by 1, 2, 3`,
        [busA],
      )
    ).rows,
    rollup: (
      await sql.query(
        `select grain, day::text, subject, location_id, survey_id, channel, staff, count, sum from analytics_rollup where business_id = $1 and count <> 0 order by 1, 2, 3, 4, 5, 6, 7`,
        [busA],
      )
    ).rows,
  });
  await apply([{ kind: 'create', w: { dishes: { [dishes[0]]: 4 }, food: 3, nps: undefined, order: 0 }, at: 0 }], ids);
  const before = await rows();
  expect(before.menu.some((r) => r.subject === 'items')).toBe(true);
  expect(before.rollup.some((r) => r.staff !== '')).toBe(true);
  await rebuildAnalytics(server.orm.em.fork(), busA);
  expect(await rows()).toEqual(before);
});
