import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { badInput, checkRange, type GroupKey, type Interval } from './analytics.rules.js';
import { orderLocationsSql } from '../location/location.service.js';
import { loggedQuery } from '../../kit/orm.pool.js';

/**
 * The analytics queries: every figure is read from the rollups the submission trigger keeps (the migration
 * Migration20261123175513 holds that rule), never from raw submissions, except where the figure is not a rating:
 * response rate counts orders (indexed by business and creation time) and the funnel reads one survey's responses.
 */
export interface AnalyticsQuery {
  from: number;
  to: number;
  interval: Interval;
  groupBy: GroupKey[];
  survey?: string | null;
  location?: string | null;
  channel?: string | null;
  metric?: string | null;
  compare?: 'previous' | null;
}

export interface Distribution {
  [value: string]: number;
}

/** One bucket of a rating report: its value of each `groupBy` key (the metric report adds `metric`), its period, its count. */
interface BucketRow {
  step?: string | null;
  location?: string | null;
  survey?: string | null;
  channel?: string | null;
  period: number;
  count: number;
}

export interface MetricRow extends BucketRow {
  metric?: string | null;
  mean: number | null;
  stddev: number | null;
  median: number | null;
  p25: number | null;
  p75: number | null;
  distribution: Distribution;
  csat: number | null;
  previous?: MetricRow | null;
}

export interface NpsRow extends BucketRow {
  promoters: number;
  passives: number;
  detractors: number;
  score: number | null;
  previous?: NpsRow | null;
}

const COLUMN: Record<GroupKey, string> = { metric: 'subject', step: 'subject', location: 'location_id', survey: 'survey_id', channel: 'channel' };

const BUCKET: Record<Interval, string> = {
  day: 'r.day',
  week: "date_trunc('week', r.day)::date",
  month: "date_trunc('month', r.day)::date",
  total: '?::date',
};

/** The business's time zone (UTC when it names none); NOT_FOUND for no business. */
const businessTimeZone = async (em: EntityManager, business: string) => (await zoneAndScales(em, business, null)).timeZone;

const dayNumber = (day: string) => Date.UTC(+day.slice(0, 4), +day.slice(5, 7) - 1, +day.slice(8, 10)) / 86_400_000;
const dayString = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);

/**
 * The position of a bucket (its first day, in days since 1970-01-01) within its range, so a bucket lines up with the
 * same one of the previous period.
 */
function bucketIndex(interval: Interval, fromDay: string, bucket: number): number {
  const from = dayNumber(fromDay);
  if (interval === 'day') return bucket - from;
  if (interval === 'week') return Math.round((bucket - (from - ((new Date(from * 86_400_000).getUTCDay() + 6) % 7))) / 7);
  if (interval === 'month') {
    const first = new Date(bucket * 86_400_000);
    return first.getUTCFullYear() * 12 + first.getUTCMonth() + 1 - (+fromDay.slice(0, 4) * 12 + +fromDay.slice(5, 7));
  }
  return 0;
}

/** One bucket's sums, as read from the rollup statement's row (an array: see rollupRows). */
interface RawRow {
  /** The bucket's value of each groupBy key, in the query's key order ('' for none). */
  keys: string[];
  /** The bucket's first day, in days since 1970-01-01. */
  day: number;
  period: number;
  n: number;
  s: number;
  q: number;
  top: number;
  /** Summed histogram slots for the values 0 to 10. */
  low: number[];
  /** Counts of values above 10, when any. */
  high?: Record<number, number>;
}

/** Histogram slots kept as columns: h0 to h10 count the values 0 to 10 (the migration Migration20261124090000). */
const SLOTS = Array.from({ length: 11 }, (_, v) => v);
/**
 * Top-2-box of a row: the counts of the two highest values of a scale whose highest value is `scaleMax` (its metric's
 * column, or the one value every metric shares), read from the slots or the wide part.
 */
const slot = (v: string) => `coalesce(case when ${v} <= 10 then (array[${SLOTS.map((v) => `r.h${v}`).join(', ')}])[${v} + 1] else r.hist_high[${v} - 10] end, 0)`;
const topBoxes = (scaleMax: string) =>
  `case ${scaleMax} ${SLOTS.slice(1).map((v) => `when ${v} then r.h${v - 1} + r.h${v}`).join(' ')} else ${slot(`${scaleMax} - 1`)} + ${slot(scaleMax)} end`;

/**
 * A bucket's period: its first day's midnight in the time zone (the placeholder), in ms. date_part's float8 seconds
 * (whole for every zone's offsets, so exact) cost less per row than extract's numeric: about a tenth of a daily
 * series' statement (pgbench).
 */
const PERIOD = "(date_part('epoch', b.bucket::timestamp at time zone ?) * 1000)::int8";

const firstOfMonth = (day: string) => `${day.slice(0, 8)}01`;
const nextMonth = (day: string) => {
  const [y, m] = [+day.slice(0, 4), +day.slice(5, 7)];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
};

/** A daily series at least this long is read as two halves at once (rollupRows). */
const SPLIT_DAYS = 32;

/** The detailed rows, and the whole-location rows (every metric or every NPS step of one location: Migration20261125150000). */
const GRAINS = { detailed: { day: 'day', month: 'month' }, whole: { day: 'lday', month: 'lmon' } } as const;
type Grains = (typeof GRAINS)[keyof typeof GRAINS];

/**
 * Which rollup rows cover the range's days: whole months from the month grain when buckets are months or the whole
 * range, the days at either edge (and everything for daily and weekly buckets) from the day grain.
 */
function coverage(interval: Interval, range: { fromDay: string; lastDay: string }, grains: Grains): { sql: string; params: string[] } {
  const months = interval === 'month' || interval === 'total';
  const startWhole = range.fromDay.endsWith('-01') ? range.fromDay : nextMonth(range.fromDay);
  const endsMonth = dayString(dayNumber(range.lastDay) + 1).endsWith('-01');
  const endWhole = endsMonth ? nextMonth(range.lastDay) : firstOfMonth(range.lastDay);
  const [day, month] = [`'${grains.day}'`, `'${grains.month}'`];
  if (!months || startWhole >= endWhole) return { sql: `(r.grain = ${day} and r.day between ?::date and ?::date)`, params: [range.fromDay, range.lastDay] };
  return {
    sql: `((r.grain = ${month} and r.day >= ?::date and r.day < ?::date) or (r.grain = ${day} and (r.day between ?::date and ?::date - 1 or r.day between ?::date and ?::date)))`,
    params: [startWhole, endWhole, range.fromDay, startWhole, endWhole, range.lastDay],
  };
}

/**
 * Which rollup rows a query reads: the detailed rows (each metric's top boxes by its own scale), or the whole-location
 * rows when it is grouped by location at most, filtered by nothing they merge, and, for CSAT, every metric has the
 * same highest value (the top boxes are then the same two slots of the merged histogram). `keys`: what a row of
 * the chosen grain is keyed by besides its day.
 */
function rowSource(q: AnalyticsQuery, kind: 'metric' | 'nps', scales: Scales | null) {
  const subject: GroupKey = kind === 'metric' ? 'metric' : 'step';
  const detailed =
    kind === 'metric'
      ? { grains: GRAINS.detailed, subjects: "r.subject like 'mtr\\_%'", top: topBoxes('m.scale_max'), join: 'join metric m on m.id = r.subject' }
      : { grains: GRAINS.detailed, subjects: "r.subject like 'step\\_%'", top: '0', join: '' };
  const detailedRows = { ...detailed, keys: [subject, 'location', 'survey', 'channel'] as GroupKey[] };
  if (q.groupBy.some((k) => k !== 'location') || q.metric != null || q.survey != null || q.channel != null) return detailedRows;
  if (kind === 'nps') return { grains: GRAINS.whole, subjects: "r.subject = 'nps'", top: '0', join: '', keys: ['location'] as GroupKey[] };
  const highest = new Set([...(scales ?? []).values()].map((s) => s.max));
  if (highest.size > 1) return detailedRows;
  return { grains: GRAINS.whole, subjects: "r.subject = 'metrics'", top: highest.size ? topBoxes(String([...highest][0])) : '0', join: '', keys: ['location'] as GroupKey[] };
}

/**
 * One statement over the rollups: the requested keys and bucket, count / sum / sum of squares / top-box counts
 * summed, histograms merged value by value. `kind` picks metric ratings or NPS steps, from the rows rowSource names.
 */
async function rollupRows(
  em: EntityManager,
  business: string,
  q: AnalyticsQuery,
  kind: 'metric' | 'nps',
  range: { fromDay: string; lastDay: string },
  timeZone: string,
  scales: Scales | null,
) {
  const keys = [...new Set(q.groupBy)];
  const source = rowSource(q, kind, scales);
  const keyCols = keys.map((k) => `r.${COLUMN[k]} as k_${k}`);
  const k = keys.map((key) => `k_${key}`);
  // The period's time zone comes first (the outer select), then the inner query's parameters in order.
  const params: unknown[] = [timeZone];
  if (q.interval === 'total') params.push(range.fromDay);
  const days = coverage(q.interval, range, source.grains);
  const where = ['r.business_id = ?', days.sql, source.subjects];
  params.push(business);
  const daysAt = params.length;
  params.push(...days.params);
  const filter = (column: string, value: string | null | undefined) => {
    if (value == null) return;
    where.push(`r.${column} = ?`);
    params.push(value);
  };
  filter('subject', q.metric);
  filter('survey_id', q.survey);
  filter('location_id', q.location);
  filter('channel', q.channel);
  const inner = `select ${[...keyCols, `${BUCKET[q.interval]} as bucket`].join(', ')}, r.count, r.sum, r.sum_sq, ${SLOTS.map((v) => `r.h${v}`).join(', ')}, r.hist_high,
           ${source.top} as top
    from analytics_rollup r ${source.join}
   where ${where.join(' and ')}`;
  const groups = [...k.map((c) => `b.${c}`), 'b.bucket'].join(', ');
  // A daily bucket of rows keyed by nothing but the query's keys (or fixed by its filters) is one row: read as stored,
  // not regrouped (a daily series by location from the whole-location rows: no sums over 1,800 groups of one row).
  const fixed: Partial<Record<GroupKey, unknown>> = { metric: q.metric, step: q.metric, location: q.location, survey: q.survey, channel: q.channel };
  const asStored = q.interval === 'day' && source.keys.every((key) => keys.includes(key) || fixed[key] != null);
  const total = (column: string) => (asStored ? `b.${column}` : `sum(b.${column})`);
  // Slots 0 to 10 (every NPS answer, every rating of the usual scales) are summed as plain columns in one pass; only
  // rows with ratings above 10 (scales up to 100) need their wide part unnested, in a second statement.
  const statement = `select ${[...k.map((c) => `b.${c}`), ''].join(', ')}concat_ws(',', b.bucket - date '1970-01-01',
            ${PERIOD},
            ${['count', 'sum', 'sum_sq', 'top', ...SLOTS.map((v) => `h${v}`)].map(total).join(', ')},
            ${asStored ? 'cardinality(b.hist_high)' : 'coalesce(max(cardinality(b.hist_high)), 0)'})
       from (${inner}) b
      ${asStored ? 'where b.count > 0' : `group by ${groups} having sum(b.count) > 0`}`;
  // A long daily series is read as two halves at once, on two connections: PostgreSQL turns each row into text on one
  // core (most of the statement's time) while the other sat idle. A day is a whole bucket, so no bucket spans both.
  const first = dayNumber(range.fromDay);
  const last = dayNumber(range.lastDay);
  const halves =
    q.interval === 'day' && last - first + 1 >= SPLIT_DAYS
      ? [
          [range.fromDay, dayString((first + last) >> 1)],
          [dayString(((first + last) >> 1) + 1), range.lastDay],
        ]
      : [days.params];
  const answer = (await Promise.all(halves.map((half) => arrayRows(em, statement, params.toSpliced(daysAt, half.length, ...half))))).flat();
  // The columns: the keys, then the bucket's figures packed as integers (see readIntegers) in this order: the day,
  // the period, n, s, q, top, the slots, the wide part's width.
  const width = keys.length;
  const slotsAt = 6;
  const wideAt = slotsAt + SLOTS.length;
  let wide = false;
  const rows = answer.map((r): RawRow => {
    const figures = readIntegers(r[width] as string, wideAt + 1);
    wide ||= figures[wideAt] > 0;
    return {
      keys: width ? (r.slice(0, width) as string[]) : [],
      day: figures[0],
      period: figures[1],
      n: figures[2],
      s: figures[3],
      q: figures[4],
      top: figures[5],
      low: figures.slice(slotsAt, wideAt),
    };
  });
  // Ordered here, not by the statement: PostgreSQL sorting 1,800 wide rows by a text key (its collation's compare for
  // every pair) took longer than the rest of the statement. Keys compare by code unit, whatever the database's locale.
  rows.sort(byKeysThenBucket);
  if (wide) {
    const counts = await arrayRows(
      em,
      `select ${[...k.map((c) => `b.${c}`), ''].join(', ')}b.bucket - date '1970-01-01' as day, (u.i + 10)::int as v, sum(u.h)::float8 as hn
         from (${inner} and cardinality(r.hist_high) > 0) b, unnest(b.hist_high) with ordinality u(h, i)
        group by ${groups}, u.i`,
      params.slice(1),
    );
    // The keys then the bucket, as the wide statement's leading columns (keyOf alone would differ with no keys).
    const byGroup = new Map(rows.map((r) => [[...r.keys, r.day].join('\u0000'), r]));
    for (const w of counts) {
      const row = byGroup.get(w.slice(0, width + 1).join('\u0000'));
      if (row) (row.high ??= {})[w[width + 1] as number] = w[width + 2] as number;
    }
  }
  return rows;
}

function byKeysThenBucket(a: RawRow, b: RawRow): number {
  for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i]) return a.keys[i] < b.keys[i] ? -1 : 1;
  return a.day - b.day;
}

/**
 * A statement's rows as arrays, on the ORM's `pg` pool: no object per row and no ORM mapping, which for a daily
 * series of 1,800 rows of 20 columns was a fifth of the request. `?` placeholders, as em.execute takes them: the
 * statements here hold no other `?` (no jsonb `?` operator, no `?` in a literal).
 */
async function arrayRows(em: EntityManager, sql: string, params: unknown[]): Promise<unknown[][]> {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const { rows } = await loggedQuery(em, { text, name: preparedName(text), values: params, rowMode: 'array' });
  return rows as unknown as unknown[][];
}

/**
 * Statements are prepared on each connection the first time it runs them (a named statement): a dashboard asks the
 * same few shapes again and again, and parsing and planning a rollup statement anew cost about half a millisecond.
 * The shapes are bounded by the query's options, but each is kept by every pooled connection: past MAX_PREPARED
 * texts, the rest run unnamed.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 100;
function preparedName(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED) preparedNames.set(text, (name = `analytics_${preparedNames.size}`));
  return name;
}

/**
 * The integers of `count` comma-separated decimal numbers (a rollup row's figures as one text column, from
 * concat_ws), read digit by digit. One text value per row instead of a column per figure: node-postgres decodes each
 * column into a string of its own, and for a daily series of 1,800 rows that decoding was most of its cost. Exact up
 * to 2^53 as Number() is; a NULL figure (concat_ws skips it) shifts the rest, so a count that differs throws.
 */
export function readIntegers(text: string, count: number): number[] {
  const out = new Array<number>(count);
  let k = 0;
  let n = 0;
  let sign = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      out[k++] = sign * n;
      n = 0;
      sign = 1;
    } else if (c === 45) sign = -1;
    else if (c >= 48 && c <= 57) n = n * 10 + (c - 48);
    else throw new Error(`not an integer list: '${text}'`);
  }
  out[k++] = sign * n;
  if (k !== count) throw new Error(`expected ${count} integers, read ${k}: '${text}'`);
  return out;
}

/** The merged histogram of a row: counts by value, dense from 0 to its highest value (at most 100). */
function histogram(row: RawRow): number[] {
  if (!row.high) return row.low;
  const counts = [...row.low];
  for (const [v, c] of Object.entries(row.high)) counts[Number(v)] = c;
  for (let v = 0; v < counts.length; v++) counts[v] ??= 0;
  return counts;
}

/**
 * The 25th, 50th and 75th percentiles of a histogram of n values: each the lowest value whose cumulative count
 * reaches p × n (null when there is none), found in one walk.
 */
function quartiles(counts: number[], n: number): [number | null, number | null, number | null] {
  const found: [number | null, number | null, number | null] = [null, null, null];
  let next = 0;
  let cumulative = 0;
  for (let value = 0; value < counts.length && next < 3; value++) {
    if (!counts[value]) continue;
    cumulative += counts[value];
    while (next < 3 && cumulative >= (next + 1) * 0.25 * n) found[next++] = value;
  }
  return found;
}

const keyOf = (row: RawRow) => row.keys.join('\u0000');
const orNull = (v: string | undefined) => (v ? v : null);

/** The key fields of a row's answer, set on `out` (one object per row: figures are added to it). */
function keyFields<T extends object>(row: RawRow, keys: GroupKey[], out: T): T {
  for (let i = 0; i < keys.length; i++) (out as Record<string, string | null>)[keys[i]] = orNull(row.keys[i]);
  return out;
}

type Scales = Map<string, { min: number; max: number }>;

/** One metric's row shows its whole scale (zeros included); rows mixing metrics show the values seen. */
function distributionOf(counts: number[], scale: { min: number; max: number } | undefined): Distribution {
  const seen = counts.flatMap((c, v) => (c ? [v] : []));
  const lo = scale?.min ?? seen[0] ?? 0;
  const hi = scale?.max ?? seen.at(-1) ?? 0;
  const distribution: Distribution = {};
  for (let v = lo; v <= hi; v++) distribution[String(v)] = counts[v] ?? 0;
  for (const v of seen) distribution[String(v)] = counts[v];
  return distribution;
}

/**
 * A metric row's figures: one class, so every row has one shape and its `distribution` getter sits on the prototype
 * (a getter in an object literal is defined anew, with its closure, on every row). The distribution is built when a
 * client asks for it: a daily series by location seldom does, and it is most of a row's objects.
 */
class MetricFigures {
  constructor(
    readonly period: number,
    readonly count: number,
    readonly mean: number | null,
    readonly stddev: number | null,
    readonly median: number | null,
    readonly p25: number | null,
    readonly p75: number | null,
    readonly csat: number | null,
    private readonly counts: number[],
    private readonly scale: { min: number; max: number } | undefined,
  ) {}

  get distribution(): Distribution {
    return distributionOf(this.counts, this.scale);
  }
}

function metricFigures(row: RawRow, scales: Scales, keys: GroupKey[], metric: string | null | undefined): MetricRow {
  const { n, s, q: sq } = row;
  const counts = histogram(row);
  const variance = n > 1 ? Math.max(0, (sq - (s * s) / n) / (n - 1)) : null;
  const metricAt = keys.indexOf('metric');
  const [p25, median, p75] = quartiles(counts, n);
  const scale = scales.get((metricAt >= 0 ? row.keys[metricAt] : metric) ?? '');
  const figures = new MetricFigures(row.period, n, n ? s / n : null, variance === null ? null : Math.sqrt(variance), median, p25, p75, n ? row.top / n : null, counts, scale);
  return keyFields(row, keys, figures as MetricFigures & MetricRow);
}

function npsFigures(row: RawRow, keys: GroupKey[]): NpsRow {
  const { n, low } = row;
  const promoters = low[9] + low[10];
  const detractors = low[0] + low[1] + low[2] + low[3] + low[4] + low[5] + low[6];
  return keyFields(row, keys, {
    period: row.period,
    count: n,
    promoters,
    passives: n - promoters - detractors,
    detractors,
    score: n ? ((promoters - detractors) / n) * 100 : null,
  });
}

/** Runs the query for its range and, with compare=previous, for the same length just before it, bucket by bucket. */
async function withPrevious<T extends { period: number }>(
  em: EntityManager,
  business: string,
  q: AnalyticsQuery,
  kind: 'metric' | 'nps',
  timeZone: string,
  allowed: readonly GroupKey[],
  scales: Scales | null,
  figures: (row: RawRow, keys: GroupKey[]) => T,
): Promise<Array<T & { previous?: T | null }>> {
  const range = checkRange(q, timeZone, allowed);
  const keys = [...new Set(q.groupBy)];
  const rows = await rollupRows(em, business, q, kind, range, timeZone, scales);
  const present = (row: RawRow) => figures(row, keys);
  if (q.compare !== 'previous') return rows.map(present);
  const days = dayNumber(range.lastDay) - dayNumber(range.fromDay) + 1;
  const previousRange = { fromDay: dayString(dayNumber(range.fromDay) - days), lastDay: dayString(dayNumber(range.fromDay) - 1) };
  const before = await rollupRows(em, business, q, kind, previousRange, timeZone, scales);
  const byKey = new Map(before.map((row) => [`${keyOf(row)}\u0000${bucketIndex(q.interval, previousRange.fromDay, row.day)}`, row]));
  // Assigned, not spread: a spread would read (so build) every lazy figure (metricFigures' distribution).
  return rows.map((row) => {
    const match = byKey.get(`${keyOf(row)}\u0000${bucketIndex(q.interval, range.fromDay, row.day)}`);
    return Object.assign(present(row), { previous: match ? present(match) : null });
  });
}

/**
 * The business's time zone (UTC when it names none) and its metrics' scales, in one round trip (a metric report needs
 * both before its rollup statement); NOT_FOUND for no business, a 400 for a `metric` filter naming no metric of it.
 */
async function zoneAndScales(em: EntityManager, business: string, metric: string | null | undefined): Promise<{ timeZone: string; scales: Scales }> {
  // On the pool, prepared: through em.execute this small read cost a millisecond, a tenth of a daily series.
  const { rows } = await loggedQuery<{ time_zone: string | null; id: string | null; scale_min: number; scale_max: number }>(em, {
    name: 'analytics_zone_and_scales',
    text: 'select b.time_zone, m.id, m.scale_min, m.scale_max from business b left join metric m on m.business_id = b.id where b.id = $1',
    values: [business],
  });
  if (!rows.length) throw AppError.notFound('Business', business);
  const scales: Scales = new Map(rows.flatMap((r) => (r.id ? [[r.id, { min: r.scale_min, max: r.scale_max }]] : [])));
  if (metric != null && !scales.has(metric)) badInput('metric', `'${metric}' is not a metric of this business`);
  return { timeZone: rows[0].time_zone ?? 'UTC', scales };
}

export async function metricAnalytics(em: EntityManager, business: string, q: AnalyticsQuery): Promise<MetricRow[]> {
  const { timeZone, scales } = await zoneAndScales(em, business, q.metric);
  return withPrevious<MetricRow>(em, business, q, 'metric', timeZone, ['metric', 'location', 'survey', 'channel'], scales, (row, keys) => metricFigures(row, scales, keys, q.metric));
}

export async function npsAnalytics(em: EntityManager, business: string, q: AnalyticsQuery): Promise<NpsRow[]> {
  if (q.metric != null) {
    const [step] = await em.execute('select 1 from survey_step where id = ? and business_id = ? and type = ?', [q.metric, business, 'nps']);
    if (!step) badInput('step', `'${q.metric}' is not an NPS step of this business`);
  }
  return withPrevious<NpsRow>(em, business, q, 'nps', await businessTimeZone(em, business), ['step', 'location', 'survey', 'channel'], null, npsFigures);
}

export interface ResponseRateRow {
  period: number;
  location?: string | null;
  channel?: string | null;
  orders: number;
  answered: number;
  rate: number | null;
}

/** What response rate may be grouped and filtered by: the order's location and the order's own channel. */
export const RESPONSE_RATE_GROUPS = ['location', 'channel'] as const satisfies readonly GroupKey[];

/**
 * Orders per bucket and those with at least one completed submission, by the order's location (the one its
 * externalLocationId names, as everywhere: the location module's rule) and its channel (WEBSITE, FOODPANDA...) when
 * asked. Counted from the order table (its (business, created_at) index) instead of a counter row kept by the order
 * writer: a per-day counter would be one hot row that every order of a busy business waits on until it commits.
 */
export async function responseRate(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'interval' | 'location' | 'channel'> & { groupBy?: GroupKey[] },
): Promise<ResponseRateRow[]> {
  const groupBy = q.groupBy ?? [];
  const timeZone = await businessTimeZone(em, business);
  const range = checkRange({ ...q, groupBy }, timeZone, RESPONSE_RATE_GROUPS);
  const byLocation = groupBy.includes('location') || q.location != null;
  const bucket = BUCKET[q.interval].replace('r.day', '(o.created_at at time zone ?)::date');
  // In the order of the placeholders: the period's time zone, the bucket's parameter, then the filter's.
  const params: unknown[] = [timeZone, q.interval === 'total' ? range.fromDay : timeZone];
  if (byLocation) params.push(business);
  params.push(business, range.fromDay, timeZone, range.lastDay, timeZone);
  const filters: string[] = [];
  if (q.location != null) (filters.push('and loc.id = ?'), params.push(q.location));
  if (q.channel != null) (filters.push('and o.channel = ?'), params.push(q.channel));
  const keys = RESPONSE_RATE_GROUPS.filter((k) => groupBy.includes(k));
  const keyCols = keys.map((k) => `b.${k}`);
  const rows = await em.execute<Array<{ period: string; location?: string | null; channel?: string | null; orders: string; answered: string }>>(
    `select ${PERIOD} as period, ${keyCols.map((c) => `${c}, `).join('')}count(*) as orders,
            count(*) filter (where exists (select 1 from submission s where s.order_id = b.id and s.status = 'completed')) as answered
       from (select o.id, ${bucket} as bucket, ${byLocation ? 'loc.id' : 'null'} as location, o.channel
               from customer_order o
               ${byLocation ? `left join (${orderLocationsSql('?')}) loc on loc.external_id = o.external_location_id` : ''}
              where o.business_id = ? and o.created_at >= (?::date)::timestamp at time zone ?
                and o.created_at < (?::date + 1)::timestamp at time zone ? ${filters.join(' ')}) b
      group by ${['b.bucket', ...keyCols].join(', ')} order by ${['b.bucket', ...keyCols].join(', ')}`,
    params,
  );
  return rows.map((r) => ({
    period: Number(r.period),
    ...Object.fromEntries(keys.map((k) => [k, r[k] ?? null])),
    orders: Number(r.orders),
    answered: Number(r.answered),
    rate: Number(r.orders) ? Number(r.answered) / Number(r.orders) : null,
  }));
}

export interface MenuItemRow {
  menuItem: string;
  name: string | null;
  metric: string | null;
  count: number;
  mean: number;
  shrunkMean: number;
}

/** Weight, in ratings, of the overall mean in a dish's shrunk mean: a dish needs about this many to speak for itself. */
export const SHRINK_WEIGHT = 10;
export const MENU_SORTS = ['shrunkMean', 'mean', 'count'] as const;

export async function menuItemAnalytics(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'metric'> & { minCount?: number | null; sort?: (typeof MENU_SORTS)[number] | null; order?: 'asc' | 'desc' | null },
): Promise<MenuItemRow[]> {
  const { timeZone } = await zoneAndScales(em, business, q.metric);
  const range = checkRange({ ...q, interval: 'total', groupBy: [] }, timeZone, []);
  const minCount = q.minCount ?? 10;
  if (!Number.isInteger(minCount) || minCount < 1) badInput('minCount', 'must be a positive integer');
  const params: unknown[] = [business, range.fromDay, range.lastDay];
  const metricFilter = q.metric != null ? 'and r.subject = ?' : '';
  if (q.metric != null) params.push(q.metric);
  const rows = await em.execute<Array<{ menu_item_id: string; name: string | null; n: string; s: string }>>(
    `select r.menu_item_id, mi.name, sum(r.count) as n, sum(r.sum) as s
       from analytics_menu_rollup r left join menu_item mi on mi.id = r.menu_item_id
      where r.business_id = ? and r.day between ?::date and ?::date ${metricFilter}
      group by r.menu_item_id, mi.name having sum(r.count) > 0`,
    params,
  );
  const total = rows.reduce((acc, r) => ({ n: acc.n + Number(r.n), s: acc.s + Number(r.s) }), { n: 0, s: 0 });
  const overall = total.n ? total.s / total.n : 0;
  const sort = q.sort ?? 'shrunkMean';
  const sign = (q.order ?? 'desc') === 'desc' ? -1 : 1;
  return rows
    .map((r) => {
      const n = Number(r.n);
      const s = Number(r.s);
      return { menuItem: r.menu_item_id, name: r.name, metric: q.metric ?? null, count: n, mean: s / n, shrunkMean: (s + SHRINK_WEIGHT * overall) / (n + SHRINK_WEIGHT) };
    })
    .filter((r) => r.count >= minCount)
    .sort((a, b) => sign * (a[sort] - b[sort]) || a.menuItem.localeCompare(b.menuItem));
}

export interface FunnelStep {
  step: string;
  position: number;
  type: string;
  reached: number;
  answered: number;
  droppedOff: number;
  /** Median seconds guests spent on the step before answering it (survey page responses; null when none was timed). */
  medianSeconds: number | null;
}

/**
 * Per step of one survey, over its responses created in the range: guests who reached it (completed responses reach
 * every step; a partial one reaches each step up to the one after its last answer, where it stopped), answered it,
 * and stopped there. Read from the responses themselves: one survey over a bounded range.
 */
export async function funnel(em: EntityManager, business: string, q: Pick<AnalyticsQuery, 'from' | 'to'> & { survey: string }): Promise<FunnelStep[]> {
  const [survey] = await em.execute('select 1 from survey where id = ? and business_id = ?', [q.survey, business]);
  if (!survey) badInput('survey', `'${q.survey}' is not a survey of this business`);
  checkRange({ ...q, interval: 'total', groupBy: [] }, 'UTC', []);
  const rows = await em.execute<Array<{ id: string; position: number; type: string; reached: string; answered: string; dropped: string; median_ms: number | null }>>(
    `with st as (select id, position, type from survey_step where survey_id = ?),
          s as (select id, status, answers from submission where business_id = ? and survey_id = ? and created_at >= to_timestamp(? / 1000.0) and created_at < to_timestamp(? / 1000.0)),
          a as (select s.id as sid, st.position, (e->>'spentMs')::bigint as spent from s cross join jsonb_array_elements(s.answers) e join st on st.id = e->>'step'),
          cur as (select s.id, s.status,
                         (select min(st.position) from st where st.position > coalesce((select max(a.position) from a where a.sid = s.id), -1)) as at
                    from s)
     select st.id, st.position, st.type,
            (select count(*) from cur where cur.status = 'completed' or coalesce(cur.at, 2147483647) >= st.position) as reached,
            (select count(*) from a where a.position = st.position) as answered,
            (select count(*) from cur where cur.status = 'partial' and cur.at = st.position) as dropped,
            (select percentile_cont(0.5) within group (order by a.spent) from a where a.position = st.position and a.spent is not null) as median_ms
       from st order by st.position`,
    [q.survey, business, q.survey, q.from, q.to],
  );
  return rows.map((r) => ({
    step: r.id,
    position: r.position,
    type: r.type,
    reached: Number(r.reached),
    answered: Number(r.answered),
    droppedOff: Number(r.dropped),
    medianSeconds: r.median_ms == null ? null : Math.round(Number(r.median_ms) / 100) / 10,
  }));
}

