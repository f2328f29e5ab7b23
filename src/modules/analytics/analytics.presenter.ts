import type { GroupKey, Interval } from './analytics.rules.js';

/** The figures of the analytics answers, from the sums the repository reads: pure functions, no SQL and no I/O. */

export interface Distribution {
  [value: string]: number;
}

/** One bucket of a rating report: its value of each `groupBy` key (the metric report adds `metric`), its period, its count. */
interface BucketRow {
  step?: string | null;
  location?: string | null;
  survey?: string | null;
  channel?: string | null;
  staff?: string | null;
  period: number;
  count: number;
  /** In a comparison across locations or staff: fewer than minCount answers, so left out of the ranking. */
  insufficient?: boolean;
  /** In a comparison across locations or staff: 1 for the best mean (NPS: score) among the groups of the same bucket and other keys. */
  rank?: number | null;
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

/** One bucket's sums, as the rollup statement returns them (analytics.repo's rollupSums). */
export interface RollupSums {
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

export type Scales = Map<string, { min: number; max: number }>;

const DAY_MS = 86_400_000;
export const dayNumber = (day: string) => Date.UTC(+day.slice(0, 4), +day.slice(5, 7) - 1, +day.slice(8, 10)) / DAY_MS;
export const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * The position of a bucket (its first day, in days since 1970-01-01) within its range, so a bucket lines up with the
 * same one of the previous period.
 */
export function bucketIndex(interval: Interval, fromDay: string, bucket: number): number {
  const from = dayNumber(fromDay);
  if (interval === 'day') return bucket - from;
  if (interval === 'week') return Math.round((bucket - (from - ((new Date(from * DAY_MS).getUTCDay() + 6) % 7))) / 7);
  if (interval === 'month') {
    const first = new Date(bucket * DAY_MS);
    return first.getUTCFullYear() * 12 + first.getUTCMonth() + 1 - (+fromDay.slice(0, 4) * 12 + +fromDay.slice(5, 7));
  }
  return 0;
}

/** The range of the same length just before `range`, for compare=previous. */
export function previousRange(range: { fromDay: string; lastDay: string }) {
  const days = dayNumber(range.lastDay) - dayNumber(range.fromDay) + 1;
  return { fromDay: dayString(dayNumber(range.fromDay) - days), lastDay: dayString(dayNumber(range.fromDay) - 1) };
}

/** Keys compare by code unit (whatever the database's locale), then buckets by day. */
export function byKeysThenBucket(a: RollupSums, b: RollupSums): number {
  for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i]) return a.keys[i] < b.keys[i] ? -1 : 1;
  return a.day - b.day;
}

/** The merged histogram of a row: counts by value, dense from 0 to its highest value (at most 100). */
export function histogram(row: RollupSums): number[] {
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
export function quartiles(counts: number[], n: number): [number | null, number | null, number | null] {
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

const keyOf = (row: RollupSums) => row.keys.join('\u0000');
const orNull = (v: string | undefined) => (v ? v : null);

/** The key fields of a row's answer, set on `out` (one object per row: figures are added to it). */
function keyFields<T extends object>(row: RollupSums, keys: GroupKey[], out: T): T {
  for (let i = 0; i < keys.length; i++) (out as Record<string, string | null>)[keys[i]] = orNull(row.keys[i]);
  return out;
}

/** One metric's row shows its whole scale (zeros included); rows mixing metrics show the values seen. */
export function distributionOf(counts: number[], scale: { min: number; max: number } | undefined): Distribution {
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
 * (an object literal's getter is a new closure per row). The distribution is built only when a client asks for it.
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

export function metricFigures(row: RollupSums, scales: Scales, keys: GroupKey[], metric: string | null | undefined): MetricRow {
  const { n, s, q: sq } = row;
  const counts = histogram(row);
  const variance = n > 1 ? Math.max(0, (sq - (s * s) / n) / (n - 1)) : null;
  const metricAt = keys.indexOf('metric');
  const [p25, median, p75] = quartiles(counts, n);
  const scale = scales.get((metricAt >= 0 ? row.keys[metricAt] : metric) ?? '');
  const figures = new MetricFigures(
    row.period,
    n,
    n ? s / n : null,
    variance === null ? null : Math.sqrt(variance),
    median,
    p25,
    p75,
    n ? row.top / n : null,
    counts,
    scale,
  );
  return keyFields(row, keys, figures as MetricFigures & MetricRow);
}

export function npsFigures(row: RollupSums, keys: GroupKey[]): NpsRow {
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

/**
 * Each row of the range with the row of the same keys and bucket position in the previous range (or null).
 * Assigned, not spread: a spread would read (so build) every lazy figure (MetricFigures' distribution).
 */
export function withPreviousRows<T extends { period: number }>(
  rows: RollupSums[],
  before: RollupSums[],
  interval: Interval,
  ranges: { current: string; previous: string },
  present: (row: RollupSums) => T,
): Array<T & { previous: T | null }> {
  const byKey = new Map(before.map((row) => [`${keyOf(row)}\u0000${bucketIndex(interval, ranges.previous, row.day)}`, row]));
  return rows.map((row) => {
    const match = byKey.get(`${keyOf(row)}\u0000${bucketIndex(interval, ranges.current, row.day)}`);
    return Object.assign(present(row), { previous: match ? present(match) : null });
  });
}

export interface ResponseRateRow {
  period: number;
  location?: string | null;
  channel?: string | null;
  orders: number;
  answered: number;
  rate: number | null;
}

export interface MenuItemRow {
  menuItem: string;
  name: string | null;
  /** `direct`: the guests' own ratings of the dish (items steps, 1 to 5); `order`: metric ratings of the orders that had it. */
  source: 'direct' | 'order';
  metric: string | null;
  count: number;
  mean: number;
  shrunkMean: number;
}

/** Weight, in ratings, of the overall mean in a dish's shrunk mean: a dish needs about this many to speak for itself. */
const SHRINK_WEIGHT = 10;
export const MENU_SORTS = ['shrunkMean', 'mean', 'count'] as const;

/**
 * Each dish's mean, shrunk toward the mean of every dish of the same source (direct ratings are on 1 to 5, order ones
 * on the metrics' scales: never mixed); those with at least minCount ratings, by source (direct first), then sorted.
 */
export function menuItemFigures(
  sums: Array<{ menuItem: string; name: string | null; source: 'direct' | 'order'; n: number; s: number }>,
  metric: string | null,
  minCount: number,
  sort: (typeof MENU_SORTS)[number],
  order: 'asc' | 'desc',
): MenuItemRow[] {
  const totals = new Map<string, { n: number; s: number }>();
  for (const r of sums) {
    const t = totals.get(r.source) ?? { n: 0, s: 0 };
    totals.set(r.source, { n: t.n + r.n, s: t.s + r.s });
  }
  const overall = (source: string) => {
    const t = totals.get(source)!;
    return t.n ? t.s / t.n : 0;
  };
  const sign = order === 'desc' ? -1 : 1;
  return sums
    .map(({ menuItem, name, source, n, s }) => ({
      menuItem,
      name,
      source,
      metric: source === 'order' ? metric : null,
      count: n,
      mean: s / n,
      shrunkMean: (s + SHRINK_WEIGHT * overall(source)) / (n + SHRINK_WEIGHT),
    }))
    .filter((r) => r.count >= minCount)
    .sort(
      (a, b) =>
        (a.source === b.source ? 0 : a.source < b.source ? -1 : 1) ||
        sign * (a[sort] - b[sort]) ||
        (a.menuItem < b.menuItem ? -1 : a.menuItem > b.menuItem ? 1 : 0),
    );
}

/**
 * A comparison across locations or staff (`compared`: the group keys compared): each row is `insufficient` under
 * minCount answers, and the others are ranked by `score` (higher first, ties sharing a rank) among the rows of the
 * same bucket and the same other keys. Rows of other reports are left as they are (`insufficient` false, `rank` null).
 */
export function rankGroups<T extends BucketRow>(rows: T[], keys: GroupKey[], compared: GroupKey[], minCount: number, score: (row: T) => number | null): T[] {
  const comparing = compared.length > 0;
  const others = keys.filter((k) => !compared.includes(k));
  const peers = new Map<string, T[]>();
  for (const row of rows) {
    row.insufficient = comparing && row.count < minCount;
    row.rank = null;
    if (!comparing || row.insufficient || score(row) == null) continue;
    const key = [row.period, ...others.map((k) => (row as Record<string, unknown>)[k] ?? '')].join('\u0000');
    const list = peers.get(key);
    if (list) list.push(row);
    else peers.set(key, [row]);
  }
  for (const list of peers.values()) {
    list.sort((a, b) => score(b)! - score(a)!);
    list.forEach((row, i) => (row.rank = i > 0 && score(list[i - 1]) === score(row) ? list[i - 1].rank! : i + 1));
  }
  return rows;
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
