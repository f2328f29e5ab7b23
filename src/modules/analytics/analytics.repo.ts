import type { EntityManager } from '@mikro-orm/core';
import { sql, type RawBuilder } from 'kysely';
import { db, runShaped } from '../../kit/db/db.js';
import { orderLocations } from '../location/index.js';
import type { GroupKey, Interval } from './analytics.rules.js';
import { dayNumber, dayString, type RollupSums, type Scales } from './analytics.presenter.js';

/**
 * Every statement of the analytics module. The figures are read from the rollups the submission trigger keeps
 * (Migration20261123175513), never from raw submissions, except where the figure is not a rating: response rate
 * counts orders (indexed by business and creation time) and the funnel reads one survey's responses.
 */

/** The tables the builder statements name. */
interface AnalyticsTables {
  business: { id: string; time_zone: string | null };
  metric: { id: string; business_id: string; scale_min: number; scale_max: number };
  survey: { id: string; business_id: string };
  survey_step: { id: string; business_id: string; type: string };
  menu_item: { id: string; business_id: string; name: string | null };
  analytics_rollup: { business_id: string };
  analytics_menu_rollup: { business_id: string; day: string; subject: string; menu_item_id: string; count: number; sum: string };
}

const analyticsDb = (em: EntityManager) => db<AnalyticsTables>(em);

/**
 * A statement built with `sql`, run by its text (its shape) and prepared: a dashboard asks the same few shapes again
 * and again, and parsing and planning one anew costs more than reading a total (the kit bounds how many are kept).
 */
function run<R>(em: EntityManager, query: RawBuilder<R>): Promise<R[]> {
  const compiled = query.compile(analyticsDb(em));
  return runShaped<R>(em, compiled.sql, compiled.parameters, () => ({ compile: () => compiled }), { prepare: true });
}

/** What a rollup statement reads: the query's filters and keys, its bucket, the time zone of its periods. */
export interface RollupQuery {
  interval: Interval;
  groupBy: GroupKey[];
  survey?: string | null;
  location?: string | null;
  channel?: string | null;
  staff?: string | null;
  metric?: string | null;
}

export interface DayRange {
  fromDay: string;
  lastDay: string;
}

/** The business's time zone and its metrics (one row per metric; one row of nulls for none); no row for no business. */
export function zoneAndMetrics(em: EntityManager, business: string) {
  // Asked before every metric report: kept prepared.
  const build = () =>
    analyticsDb(em)
      .selectFrom('business as b')
      .leftJoin('metric as m', 'm.business_id', 'b.id')
      .select(['b.time_zone', 'm.id', 'm.scale_min', 'm.scale_max'])
      .where('b.id', '=', business);
  return runShaped(em, 'analytics.zoneAndMetrics', [business], build, { prepare: true });
}

export async function businessExists(em: EntityManager, business: string): Promise<boolean> {
  return !!(await analyticsDb(em).selectFrom('business').select('id').where('id', '=', business).executeTakeFirst());
}

export async function isNpsStep(em: EntityManager, business: string, step: string): Promise<boolean> {
  const row = await analyticsDb(em)
    .selectFrom('survey_step')
    .select('id')
    .where('id', '=', step)
    .where('business_id', '=', business)
    .where('type', '=', 'nps')
    .executeTakeFirst();
  return !!row;
}

export async function isSurveyOf(em: EntityManager, business: string, survey: string): Promise<boolean> {
  return !!(await analyticsDb(em).selectFrom('survey').select('id').where('id', '=', survey).where('business_id', '=', business).executeTakeFirst());
}

/** The rating rollups' column of each key (`dish` groups themes only: checkRange refuses it for ratings). */
const COLUMN: Record<GroupKey, string> = {
  metric: 'subject',
  step: 'subject',
  location: 'location_id',
  survey: 'survey_id',
  channel: 'channel',
  staff: 'staff',
  dish: 'menu_item_id',
};

/** A bucket's first day, from a rollup row's day (`r.day`) or an order's local day. */
function bucketOf(interval: Interval, day: RawBuilder<unknown>, fromDay: string): RawBuilder<unknown> {
  if (interval === 'day') return day;
  if (interval === 'week') return sql`date_trunc('week', ${day})::date`;
  if (interval === 'month') return sql`date_trunc('month', ${day})::date`;
  return sql`${fromDay}::date`;
}

/**
 * A bucket's period: its first day's midnight in the time zone, in ms. date_part's float8 seconds (whole for every
 * zone's offsets, so exact) are cheaper per row than extract's numeric.
 */
const periodOf = (bucket: RawBuilder<unknown>, timeZone: string) => sql`(date_part('epoch', (${bucket})::timestamp at time zone ${timeZone}) * 1000)::int8`;

/** Histogram slots kept as columns: h0 to h10 count the values 0 to 10 (the migration Migration20261124090000). */
const SLOTS = Array.from({ length: 11 }, (_, v) => v);
/**
 * Top-2-box of a row: the counts of the two highest values of a scale whose highest value is `scaleMax` (its metric's
 * column, or the one value every metric shares), read from the slots or the wide part.
 */
const slot = (v: string) =>
  `coalesce(case when ${v} <= 10 then (array[${SLOTS.map((v) => `r.h${v}`).join(', ')}])[${v} + 1] else r.hist_high[${v} - 10] end, 0)`;
const topBoxes = (scaleMax: string) =>
  sql.raw(
    `case ${scaleMax} ${SLOTS.slice(1)
      .map((v) => `when ${v} then r.h${v - 1} + r.h${v}`)
      .join(' ')} else ${slot(`${scaleMax} - 1`)} + ${slot(scaleMax)} end`,
  );
/** topBoxes of a highest value known here: the two slots themselves, a shorter statement for PostgreSQL to parse. */
const knownSlot = (v: number) => (v < 0 ? '0' : v <= 10 ? `r.h${v}` : `coalesce(r.hist_high[${v - 10}], 0)`);
const topBoxesOf = (scaleMax: number) => sql.raw(`${knownSlot(scaleMax - 1)} + ${knownSlot(scaleMax)}`);

const firstOfMonth = (day: string) => `${day.slice(0, 8)}01`;
const nextMonth = (day: string) => {
  const [y, m] = [+day.slice(0, 4), +day.slice(5, 7)];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
};

/** A daily series at least this long is read as two halves at once (rollupSums). */
const SPLIT_DAYS = 32;

/** The detailed rows, and the whole-location rows (every metric or every NPS step of one location: Migration20261125150000). */
const GRAINS = { detailed: { day: 'day', month: 'month' }, whole: { day: 'lday', month: 'lmon' } } as const;
type Grains = (typeof GRAINS)[keyof typeof GRAINS];

/**
 * Which rollup rows cover the range's days: whole months from the month grain when buckets are months or the whole
 * range, the days at either edge (and everything for daily and weekly buckets) from the day grain.
 */
function coverage(interval: Interval, range: DayRange, grains: Grains): RawBuilder<unknown> {
  const months = interval === 'month' || interval === 'total';
  const startWhole = range.fromDay.endsWith('-01') ? range.fromDay : nextMonth(range.fromDay);
  const endsMonth = dayString(dayNumber(range.lastDay) + 1).endsWith('-01');
  const endWhole = endsMonth ? nextMonth(range.lastDay) : firstOfMonth(range.lastDay);
  const [day, month] = [sql.lit(grains.day), sql.lit(grains.month)];
  if (!months || startWhole >= endWhole) return sql`(r.grain = ${day} and r.day between ${range.fromDay}::date and ${range.lastDay}::date)`;
  return sql`((r.grain = ${month} and r.day >= ${startWhole}::date and r.day < ${endWhole}::date)
    or (r.grain = ${day} and (r.day between ${range.fromDay}::date and ${startWhole}::date - 1 or r.day between ${endWhole}::date and ${range.lastDay}::date)))`;
}

/**
 * Which rollup rows a query reads: the detailed rows (each metric's top boxes by its own scale), or the whole-location
 * rows when it is grouped by location at most, filtered by nothing they merge, and, for CSAT, every metric has the
 * same highest value (the top boxes are then the same two slots of the merged histogram). `keys`: what a row of
 * the chosen grain is keyed by besides its day.
 */
function rowSource(q: RollupQuery, kind: 'metric' | 'nps', scales: Scales | null) {
  const subject: GroupKey = kind === 'metric' ? 'metric' : 'step';
  const none = sql.raw('');
  const detailed =
    kind === 'metric'
      ? {
          grains: GRAINS.detailed,
          subjects: sql.raw("r.subject like 'mtr\\_%'"),
          top: topBoxes('m.scale_max'),
          join: sql.raw('join metric m on m.id = r.subject'),
        }
      : { grains: GRAINS.detailed, subjects: sql.raw("r.subject like 'step\\_%'"), top: sql.raw('0'), join: none };
  const detailedRows = { ...detailed, keys: [subject, 'location', 'survey', 'channel', 'staff'] as GroupKey[] };
  if (q.groupBy.some((k) => k !== 'location') || q.metric != null || q.survey != null || q.channel != null || q.staff != null) return detailedRows;
  if (kind === 'nps') return { grains: GRAINS.whole, subjects: sql.raw("r.subject = 'nps'"), top: sql.raw('0'), join: none, keys: ['location'] as GroupKey[] };
  const highest = new Set([...(scales ?? []).values()].map((s) => s.max));
  if (highest.size > 1) return detailedRows;
  const top = highest.size ? topBoxesOf([...highest][0]) : sql.raw('0');
  return { grains: GRAINS.whole, subjects: sql.raw("r.subject = 'metrics'"), top, join: none, keys: ['location'] as GroupKey[] };
}

/**
 * One statement over the rollups: the requested keys and bucket, count / sum / sum of squares / top-box counts
 * summed, histograms merged value by value. `kind` picks metric ratings or NPS steps, from the rows rowSource names.
 * Rows come back unordered: the service sorts them.
 */
export async function rollupSums(
  em: EntityManager,
  business: string,
  q: RollupQuery,
  kind: 'metric' | 'nps',
  range: DayRange,
  timeZone: string,
  scales: Scales | null,
): Promise<RollupSums[]> {
  const keys = [...new Set(q.groupBy)];
  const source = rowSource(q, kind, scales);
  const filters = (
    [
      ['subject', q.metric],
      ['survey_id', q.survey],
      ['location_id', q.location],
      ['channel', q.channel],
      ['staff', q.staff],
    ] as const
  ).flatMap(([column, value]) => (value == null ? [] : [sql`and ${sql.ref(`r.${column}`)} = ${value}`]));
  // A daily bucket of rows keyed by nothing but the query's keys (or fixed by its filters) is one row: read as stored,
  // not regrouped (a daily series by location from the whole-location rows is one stored row per group).
  const fixed: Partial<Record<GroupKey, unknown>> = {
    metric: q.metric,
    step: q.metric,
    location: q.location,
    survey: q.survey,
    channel: q.channel,
    staff: q.staff,
  };
  const asStored = q.interval === 'day' && source.keys.every((key) => keys.includes(key) || fixed[key] != null);
  const keyColumns = keys.map((k) => sql.ref(`r.${COLUMN[k]}`));
  const keyOutputs = sql.join([...keyColumns.map((column, i) => sql`${column} as ${sql.id(`k${i}`)}`), sql``]);
  // A total's bucket is the range's first day, a constant: nothing to group by.
  const grouped = (days: DayRange, ...more: RawBuilder<unknown>[]) => {
    const by = [...keyColumns, ...(q.interval === 'total' ? [] : [bucketOf(q.interval, sql`r.day`, days.fromDay)]), ...more];
    return by.length ? sql`group by ${sql.join(by)}` : sql``;
  };
  const rowsOf = (days: DayRange, wideOnly: boolean) => sql`
      from analytics_rollup r ${source.join} ${wideOnly ? sql`, unnest(r.hist_high) with ordinality u(h, i)` : sql``}
     where r.business_id = ${business} and ${coverage(q.interval, days, source.grains)} and ${source.subjects} ${sql.join(filters, sql` `)}
           ${wideOnly ? sql`and cardinality(r.hist_high) > 0` : asStored ? sql`and r.count > 0` : sql``}`;
  const total = (value: RawBuilder<unknown>) => (asStored ? value : sql`sum(${value})`);
  // A bucket's keys as columns k0, k1..., its integer figures as one json array `f` (one value to decode instead of a
  // column each): the day, the period, n, s, q, top, the slots, the wide part's width. Written as the integers' text
  // between brackets and cast to json (which checks it), cheaper for PostgreSQL than to_json's per-value conversion.
  // Slots 0 to 10 (every NPS answer, every rating of the usual scales) are summed as plain columns in one pass; only
  // rows with ratings above 10 (scales up to 100) need their wide part unnested, in a second statement.
  const statement = (days: DayRange) => {
    const bucket = bucketOf(q.interval, sql`r.day`, days.fromDay);
    return sql<Record<string, string> & { f: number[] }>`
    select ${keyOutputs} ('[' || concat_ws(',', ${sql.join([
      sql`${bucket} - date '1970-01-01'`,
      periodOf(bucket, timeZone),
      ...[sql`r.count`, sql`r.sum`, sql`r.sum_sq`, source.top, ...SLOTS.map((v) => sql.ref(`r.h${v}`))].map(total),
      asStored ? sql`coalesce(cardinality(r.hist_high), 0)` : sql`coalesce(max(cardinality(r.hist_high)), 0)`,
    ])}) || ']')::json as f
    ${rowsOf(days, false)}
    ${asStored ? sql`` : sql`${grouped(days)} having sum(r.count) > 0`}`;
  };
  // A long daily series is read as two halves at once, on two connections (outside a transaction): PostgreSQL builds
  // each statement's answer on one core. A day is a whole bucket, so no bucket spans both halves.
  const first = dayNumber(range.fromDay);
  const last = dayNumber(range.lastDay);
  const middle = (first + last) >> 1;
  const halves =
    q.interval === 'day' && last - first + 1 >= SPLIT_DAYS
      ? [
          { fromDay: range.fromDay, lastDay: dayString(middle) },
          { fromDay: dayString(middle + 1), lastDay: range.lastDay },
        ]
      : [range];
  const answer = (await Promise.all(halves.map((half) => run(em, statement(half))))).flat();
  const keyNames = keys.map((_, i) => `k${i}`);
  const wideAt = 6 + SLOTS.length;
  const figureCount = wideAt + 1;
  let wide = false;
  const rows = answer.map((r): RollupSums => {
    const f = r.f;
    // concat_ws leaves out a NULL, which would shift every later figure: none is NULL, and this says so if one were.
    if (f.length !== figureCount) throw new Error(`a rollup bucket has ${f.length} figures, not ${figureCount}: ${JSON.stringify(f)}`);
    wide ||= f[wideAt] > 0;
    return { keys: keyNames.map((name) => r[name]), day: f[0], period: f[1], n: f[2], s: f[3], q: f[4], top: f[5], low: f.slice(6, wideAt) };
  });
  if (wide) {
    const counts = await run(
      em,
      sql<Record<string, string> & { day: number; v: number; hn: number }>`
      select ${keyOutputs} ${bucketOf(q.interval, sql`r.day`, range.fromDay)} - date '1970-01-01' as day, (u.i + 10)::int as v, sum(u.h)::float8 as hn
      ${rowsOf(range, true)}
      ${grouped(range, sql`u.i`)}`,
    );
    // A bucket's keys then its day, for both statements' rows.
    const groupOf = (keyValues: string[], day: number) => [...keyValues, day].join('\u0000');
    const byGroup = new Map(rows.map((r) => [groupOf(r.keys, r.day), r]));
    for (const w of counts) {
      const row = byGroup.get(
        groupOf(
          keyNames.map((name) => w[name]),
          w.day,
        ),
      );
      if (row) (row.high ??= {})[w.v] = w.hn;
    }
  }
  return rows;
}

/** What response rate may be grouped and filtered by: the order's location and the order's own channel. */
export const RESPONSE_RATE_GROUPS = ['location', 'channel'] as const satisfies readonly GroupKey[];

/**
 * Orders per bucket and those with at least one completed submission, by the order's location (the one its
 * externalLocationId names, as everywhere: the location module's rule) and its channel when asked. Counted from the
 * order table (its (business, created_at) index) instead of a counter row kept by the order writer: a per-day counter
 * would be one hot row that every order of a busy business waits on until it commits.
 */
export async function ordersPerBucket(
  em: EntityManager,
  business: string,
  q: { interval: Interval; location?: string | null; channel?: string | null; groupBy: GroupKey[] },
  range: DayRange,
  timeZone: string,
) {
  const byLocation = q.groupBy.includes('location') || q.location != null;
  const keys = RESPONSE_RATE_GROUPS.filter((k) => q.groupBy.includes(k));
  const columns = sql.join([sql`b.bucket`, ...keys.map((k) => sql.ref(`b.${k}`))]);
  const { rows } = await sql<{ period: string; location?: string | null; channel?: string | null; orders: string; answered: string }>`
    select ${periodOf(sql`b.bucket`, timeZone)} as period, ${sql.join([...keys.map((k) => sql.ref(`b.${k}`)), sql``])} count(*) as orders,
           count(*) filter (where exists (select 1 from submission s where s.business_id = ${business} and s.order_id = b.id and s.status = 'completed')) as answered
      from (select o.id, ${bucketOf(q.interval, sql`(o.created_at at time zone ${timeZone})::date`, range.fromDay)} as bucket,
                   ${byLocation ? sql`loc.id` : sql`null`} as location, o.channel
              from customer_order o
              ${byLocation ? sql`left join (${orderLocations(sql`${business}`)}) loc on loc.external_id = o.external_location_id` : sql``}
             where o.business_id = ${business} and o.created_at >= (${range.fromDay}::date)::timestamp at time zone ${timeZone}
               and o.created_at < (${range.lastDay}::date + 1)::timestamp at time zone ${timeZone}
               ${q.location != null ? sql`and loc.id = ${q.location}` : sql``}
               ${q.channel != null ? sql`and o.channel = ${q.channel}` : sql``}) b
     group by ${columns} order by ${columns}`.execute(db(em));
  return rows;
}

/** Where a dish's ratings come from: the guest's own rating of it (`direct`, items steps) or the metric ratings of orders that had it (`order`). */
export const MENU_SOURCES = ['direct', 'order'] as const;
export type MenuSource = (typeof MENU_SOURCES)[number];

/**
 * Sums of ratings per menu item and source over the range's days: direct ratings (subject `items`) and metric ratings
 * through the orders' lines (of one metric or every one), as `sources` asks.
 */
export async function menuItemSums(em: EntityManager, business: string, range: DayRange, metric: string | null | undefined, sources: readonly MenuSource[]) {
  const source = sql<MenuSource>`case when r.subject = 'items' then 'direct' else 'order' end`;
  const subjects = [
    ...(sources.includes('direct') ? [sql<boolean>`r.subject = 'items'`] : []),
    ...(sources.includes('order') ? [metric != null ? sql<boolean>`r.subject = ${metric}` : sql<boolean>`r.subject like 'mtr\\_%'`] : []),
  ];
  if (!subjects.length) return [];
  return analyticsDb(em)
    .selectFrom('analytics_menu_rollup as r')
    .leftJoin('menu_item as mi', (join) => join.onRef('mi.business_id', '=', 'r.business_id').onRef('mi.id', '=', 'r.menu_item_id'))
    .select(['r.menu_item_id', 'mi.name', source.as('source'), sql<string>`sum(r.count)`.as('n'), sql<string>`sum(r.sum)`.as('s')])
    .where('r.business_id', '=', business)
    .where(sql<boolean>`r.day between ${range.fromDay}::date and ${range.lastDay}::date`)
    .where(sql<boolean>`(${sql.join(subjects, sql` or `)})`)
    .groupBy([sql`1`, sql`2`, sql`3`])
    .having(sql<boolean>`sum(r.count) > 0`)
    .execute();
}

/**
 * Per step of one survey, over its responses created in [from, to): guests who reached it (completed responses reach
 * every step; a partial one reaches each step up to the one after its last answer, where it stopped), answered it,
 * and stopped there, and the median time spent on it. Read from the responses themselves: one survey, a bounded range.
 */
export async function funnelCounts(em: EntityManager, business: string, survey: string, from: number, to: number) {
  const { rows } = await sql<{ id: string; position: number; type: string; reached: string; answered: string; dropped: string; median_ms: number | null }>`
    with st as (select id, position, type from survey_step where business_id = ${business} and survey_id = ${survey}),
         s as (select id, status, answers from submission
                where business_id = ${business} and survey_id = ${survey} and created_at >= to_timestamp(${from} / 1000.0) and created_at < to_timestamp(${to} / 1000.0)),
         a as (select s.id as sid, st.position, (e->>'spentMs')::bigint as spent from s cross join jsonb_array_elements(s.answers) e join st on st.id = e->>'step'),
         cur as (select s.id, s.status,
                        (select min(st.position) from st where st.position > coalesce((select max(a.position) from a where a.sid = s.id), -1)) as at
                   from s)
    select st.id, st.position, st.type,
           (select count(*) from cur where cur.status = 'completed' or coalesce(cur.at, 2147483647) >= st.position) as reached,
           (select count(*) from a where a.position = st.position) as answered,
           (select count(*) from cur where cur.status = 'partial' and cur.at = st.position) as dropped,
           (select percentile_cont(0.5) within group (order by a.spent) from a where a.position = st.position and a.spent is not null) as median_ms
      from st order by st.position`.execute(db(em));
  return rows;
}

// The rebuild's statements: run in its transaction (`tx`), as db() binds to it.

const SLOT_LIST = sql.raw(SLOTS.map((v) => `h${v}`).join(', '));
const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

/** The business's analytics lock, which every submission trigger takes shared (Migration20261124090000). */
export async function lockAnalyticsExclusively(tx: EntityManager, business: string) {
  await sql`select pg_advisory_xact_lock(hashtext('analytics:' || ${business}))`.execute(db(tx));
}

/** Takes a deleted metric's ratings out of the whole-location rollups (the SQL function of Migration20261125150000). */
export async function forgetMetric(tx: EntityManager, business: string, metric: string) {
  await sql`select analytics_forget_metric(${business}, ${metric})`.execute(db(tx));
}

/** Every business's id, in order. */
export async function businessIds(em: EntityManager): Promise<string[]> {
  return (await analyticsDb(em).selectFrom('business').select('id').orderBy('id').execute()).map((r) => r.id);
}

/**
 * Recomputes a business's rollups from its submissions in `tx` (which holds its analytics lock): each submission's
 * day from the current time zones, then the rollups by the trigger's rules (analytics_grains, analytics_slots) over
 * every submission at once. The trigger stands aside (analytics.rebuild) for the transaction.
 */
export async function recomputeRollups(tx: EntityManager, business: string) {
  const run = db(tx);
  await sql`set local analytics.rebuild = 'on'`.execute(run);
  const days = await sql`update submission set analytics_day = analytics_day_of(business_id, location_id, created_at)
     where business_id = ${business} and analytics_day is distinct from analytics_day_of(business_id, location_id, created_at)`.execute(run);
  // Each submission's staff by the business's current staff key (Migration20261127083000).
  await sql`update submission set analytics_staff = analytics_staff_of(order_id)
     where business_id = ${business} and analytics_staff is distinct from analytics_staff_of(order_id)`.execute(run);
  await sql`delete from analytics_rollup where business_id = ${business}`.execute(run);
  await sql`delete from analytics_menu_rollup where business_id = ${business}`.execute(run);
  const rollups =
    await sql`insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, staff, count, sum, sum_sq, ${SLOT_LIST}, hist_high)
     select a.business_id, a.grain, a.day, a.subject, a.location_id, a.survey_id, a.channel, a.staff, s.*
       from (select s.business_id, g.grain, g.day, x.subject, coalesce(s.location_id, '') as location_id, coalesce(s.survey_id, '') as survey_id,
                    coalesce(s.channel, '') as channel, coalesce(s.analytics_staff, '') as staff, array_agg(x.value) as vals
               from submission s cross join lateral analytics_ratings(s.answers) x cross join lateral analytics_grains(s.analytics_day) g
              where s.business_id = ${business}
              group by 1, 2, 3, 4, 5, 6, 7, 8) a
       cross join lateral analytics_slots(a.vals, 1) s`.execute(run);
  // The whole-location rows (Migration20261125150000): every metric or NPS step of a location, across surveys and channels.
  const whole =
    await sql`insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, count, sum, sum_sq, ${SLOT_LIST}, hist_high)
     select a.business_id, a.grain, a.day, a.kind, a.location_id, '', '', s.*
       from (select s.business_id, g.grain, g.day, x.kind, coalesce(s.location_id, '') as location_id, array_agg(x.value) as vals
               from submission s cross join lateral analytics_whole_ratings(s.answers) x cross join lateral analytics_whole_grains(s.analytics_day) g
              where s.business_id = ${business}
              group by 1, 2, 3, 4, 5) a
       cross join lateral analytics_slots(a.vals, 1) s`.execute(run);
  const menu = await sql`insert into analytics_menu_rollup (business_id, day, subject, menu_item_id, count, sum, sum_sq)
     select s.business_id, s.analytics_day, x.subject, oi.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
       from submission s
       cross join lateral (select distinct i.menu_item_id from order_item i
                            where i.business_id = s.business_id and i.order_id = s.order_id and i.menu_item_id is not null) oi
       cross join lateral analytics_ratings(s.answers) x
      where s.business_id = ${business} and s.order_id is not null and x.subject like 'mtr\\_%'
      group by 1, 2, 3, 4`.execute(run);
  // The dishes rated directly on items steps (subject `items`).
  const direct = await sql`insert into analytics_menu_rollup (business_id, day, subject, menu_item_id, count, sum, sum_sq)
     select s.business_id, s.analytics_day, 'items', x.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
       from submission s cross join lateral analytics_item_ratings(s.answers) x
      where s.business_id = ${business}
      group by 1, 2, 3, 4`.execute(run);
  return { daysRecomputed: affected(days), rollupRows: affected(rollups) + affected(whole), menuRollupRows: affected(menu) + affected(direct) };
}

/** What recovery figures may be grouped and filtered by: the case's location. */
export const RECOVERY_GROUPS = ['location'] as const satisfies readonly GroupKey[];

/**
 * Cases per bucket of the day they opened (in the business time zone), counted from the case rows themselves: how
 * many were answered, how fast, resolved, recovered, and what the recovering orders spent, per currency. Exact, and
 * cheap: a business has few cases, read through their (business, created_at) index.
 */
export async function casesPerBucket(
  em: EntityManager,
  business: string,
  q: { interval: Interval; location?: string | null; groupBy: GroupKey[] },
  range: DayRange,
  timeZone: string,
) {
  const byLocation = q.groupBy.includes('location');
  const keys = byLocation ? sql`, c.location_id` : sql``;
  const { rows } = await sql<{
    period: string;
    location?: string | null;
    opened: string;
    replied: string;
    replied_within_hour: string;
    median_first_reply_minutes: number | null;
    resolved: string;
    recovered: string;
    revenue: Array<{ currency: string; amount: string }> | null;
  }>`
    select ${periodOf(sql`c.bucket`, timeZone)} as period ${byLocation ? sql`, c.location_id as location` : sql``},
           count(*) as opened,
           count(*) filter (where c.first_reply_at is not null) as replied,
           count(*) filter (where c.first_reply_at <= c.opened_at + interval '1 hour') as replied_within_hour,
           percentile_cont(0.5) within group (order by extract(epoch from c.first_reply_at - c.opened_at) / 60) filter (where c.first_reply_at is not null) as median_first_reply_minutes,
           count(*) filter (where c.resolved_at is not null) as resolved,
           count(*) filter (where c.status = 'recovered') as recovered,
           (select json_agg(json_build_object('currency', r.currency, 'amount', r.amount::text) order by r.currency)
              from (select o.currency, sum(o.total) as amount from customer_order o
                     where o.business_id = ${business} and o.id = any(array_agg(c.recovered_order_id) filter (where c.status = 'recovered')) group by o.currency) r) as revenue
      from (select g.*, ${bucketOf(q.interval, sql`(g.opened_at at time zone ${timeZone})::date`, range.fromDay)} as bucket
              from guest_case g
             where g.business_id = ${business} and g.opened_at >= (${range.fromDay}::date)::timestamp at time zone ${timeZone}
               and g.opened_at < (${range.lastDay}::date + 1)::timestamp at time zone ${timeZone}
               ${q.location != null ? sql`and g.location_id = ${q.location}` : sql``}) c
     group by c.bucket ${keys} order by c.bucket ${keys}`.execute(db(em));
  return rows;
}

/** What theme figures may be grouped and filtered by: the submission's location, survey and channel, and a dish the answer names. */
export const THEME_GROUPS = ['location', 'survey', 'channel', 'dish'] as const satisfies readonly GroupKey[];

/**
 * Per theme and bucket of the submission's analytics day, the text answers the workers read as speaking of it, by
 * the theme's sentiment: summed from the theme rollup (theme-rollup.entity.ts), kept exact in the transaction of each
 * analysis, move and deletion. Its rows of dish '' count each answer once; grouped or filtered by dish, the rows of
 * the dishes the answers name (an answer naming two dishes counts for each). Read by the key (business, day, ...).
 */
export async function themesPerBucket(
  em: EntityManager,
  business: string,
  q: {
    interval: Interval;
    groupBy: GroupKey[];
    location?: string | null;
    survey?: string | null;
    channel?: string | null;
    theme?: string | null;
    dish?: string | null;
  },
  range: DayRange,
  timeZone: string,
) {
  const keys = THEME_GROUPS.filter((k) => q.groupBy.includes(k));
  // '' is the rollup's "none": null in the answer, and last in the order, as it was before the rollup.
  const columns = {
    location: sql`nullif(r.location_id, '')`,
    survey: sql`nullif(r.survey_id, '')`,
    channel: sql`nullif(r.channel, '')`,
    dish: sql`r.menu_item_id`,
  } as const;
  const bucket = bucketOf(q.interval, sql`r.day`, range.fromDay);
  const by = [bucket, sql`r.theme`, ...keys.map((k) => columns[k])];
  const dishes = q.dish != null ? sql`r.menu_item_id = ${q.dish}` : keys.includes('dish') ? sql`r.menu_item_id <> ''` : sql`r.menu_item_id = ''`;
  return run<{
    period: string;
    theme: string;
    location?: string | null;
    survey?: string | null;
    channel?: string | null;
    dish?: string | null;
    dish_name?: string | null;
    positive: string;
    neutral: string;
    negative: string;
  }>(
    em,
    sql`
    select ${periodOf(bucket, timeZone)} as period, r.theme ${sql.join(
      keys.map((k) => sql`, ${columns[k]} as ${sql.ref(k)}`),
      sql``,
    )}
           ${keys.includes('dish') ? sql`, min(mi.name) as dish_name` : sql``},
           sum(r.positive) as positive, sum(r.neutral) as neutral, sum(r.negative) as negative
      from analytics_theme_rollup r
      ${keys.includes('dish') ? sql`left join menu_item mi on mi.business_id = r.business_id and mi.id = r.menu_item_id` : sql``}
     where r.business_id = ${business} and r.day between ${range.fromDay}::date and ${range.lastDay}::date and ${dishes}
       ${q.location != null ? sql`and r.location_id = ${q.location}` : sql``}
       ${q.survey != null ? sql`and r.survey_id = ${q.survey}` : sql``}
       ${q.channel != null ? sql`and r.channel = ${q.channel}` : sql``}
       ${q.theme != null ? sql`and r.theme = ${q.theme}` : sql``}
     group by ${sql.join(by)}
    having sum(r.positive) <> 0 or sum(r.neutral) <> 0 or sum(r.negative) <> 0
     order by ${sql.join(by)}`,
  );
}

/**
 * The words guests use most for each theme and sentiment over the range's days (the word rollup): at most `limit` per
 * theme and sentiment, the most used first (ties by the word), each counted once per answer that used it.
 */
export async function themeWords(
  em: EntityManager,
  business: string,
  q: { theme?: string | null; sentiment?: string | null; location?: string | null; survey?: string | null; limit: number },
  range: DayRange,
) {
  return run<{ theme: string; sentiment: string; word: string; count: string }>(
    em,
    sql`
    select w.theme, w.sentiment, w.word, w.count from (
      select r.theme, r.sentiment, r.word, sum(r.count) as count,
             row_number() over (partition by r.theme, r.sentiment order by sum(r.count) desc, r.word) as rank
        from analytics_theme_word_rollup r
       where r.business_id = ${business} and r.day between ${range.fromDay}::date and ${range.lastDay}::date
         ${q.theme != null ? sql`and r.theme = ${q.theme}` : sql``}
         ${q.sentiment != null ? sql`and r.sentiment = ${q.sentiment}` : sql``}
         ${q.location != null ? sql`and r.location_id = ${q.location}` : sql``}
         ${q.survey != null ? sql`and r.survey_id = ${q.survey}` : sql``}
       group by r.theme, r.sentiment, r.word
      having sum(r.count) > 0) w
     where w.rank <= ${q.limit}
     order by w.theme, w.sentiment, w.count desc, w.word`,
  );
}
