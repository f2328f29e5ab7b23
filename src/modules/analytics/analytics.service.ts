import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { isSentiment, isThemeName, SENTIMENT_LABELS, THEME_NAME_RULE } from '../../shared/themes.js';
import { badInput, checkRange, DEFAULT_MIN_COUNT, type GroupKey } from './analytics.rules.js';
import * as repo from './analytics.repo.js';
import {
  byKeysThenBucket,
  menuItemFigures,
  metricFigures,
  npsFigures,
  previousRange,
  rankGroups,
  withPreviousRows,
  MENU_SORTS,
  type FunnelStep,
  type MenuItemRow,
  type MetricRow,
  type NpsRow,
  type ResponseRateRow,
  type RollupSums,
  type Scales,
} from './analytics.presenter.js';

export type { FunnelStep, MenuItemRow, MetricRow, NpsRow, ResponseRateRow } from './analytics.presenter.js';
export { MENU_SORTS } from './analytics.presenter.js';
export { MENU_SOURCES, type MenuSource } from './analytics.repo.js';

/** The analytics answers: checks, then the repository's sums, then the figures (analytics.figures). */
export interface AnalyticsQuery extends repo.RollupQuery {
  from: number;
  to: number;
  compare?: 'previous' | null;
  /** Groups of a comparison across locations or staff with fewer answers are `insufficient` and not ranked. */
  minCount?: number | null;
}

/** Groups that are compared with each other: locations and staff. */
const COMPARED: readonly GroupKey[] = ['location', 'staff'];

/** Marks and ranks a comparison across locations or staff (rankGroups), the previous period's rows marked too. */
function compared<T extends { count: number; period: number; previous?: T | null; insufficient?: boolean; rank?: number | null }>(
  rows: T[],
  q: AnalyticsQuery,
  score: (row: T) => number | null,
): T[] {
  const minCount = q.minCount ?? DEFAULT_MIN_COUNT;
  if (!Number.isInteger(minCount) || minCount < 1) badInput('minCount', 'must be a positive integer');
  const keys = [...new Set(q.groupBy)];
  const comparing = keys.filter((k) => COMPARED.includes(k));
  rankGroups(rows, keys, comparing, minCount, score);
  const previous = rows.flatMap((r) => (r.previous ? [r.previous] : []));
  rankGroups(previous, keys, comparing, minCount, score);
  return rows;
}

/**
 * The business's time zone (UTC when it names none) and its metrics' scales, in one round trip (a metric report needs
 * both before its rollup statement); NOT_FOUND for no business, a 400 for a `metric` filter naming no metric of it.
 */
async function zoneAndScales(em: EntityManager, business: string, metric: string | null | undefined): Promise<{ timeZone: string; scales: Scales }> {
  const rows = await repo.zoneAndMetrics(em, business);
  if (!rows.length) throw AppError.notFound('Business', business);
  const scales: Scales = new Map(rows.flatMap((r) => (r.id ? [[r.id, { min: r.scale_min!, max: r.scale_max! }]] : [])));
  if (metric != null && !scales.has(metric)) badInput('metric', `'${metric}' is not a metric of this business`);
  return { timeZone: rows[0].time_zone ?? 'UTC', scales };
}

/** The business's time zone (UTC when it names none); NOT_FOUND for no business. */
const businessTimeZone = async (em: EntityManager, business: string) => (await zoneAndScales(em, business, null)).timeZone;

/** Runs the query for its range and, with compare=previous, for the same length just before it, bucket by bucket. */
async function withPrevious<T extends { period: number }>(
  em: EntityManager,
  business: string,
  q: AnalyticsQuery,
  kind: 'metric' | 'nps',
  timeZone: string,
  allowed: readonly GroupKey[],
  scales: Scales | null,
  figures: (row: RollupSums, keys: GroupKey[]) => T,
): Promise<Array<T & { previous?: T | null }>> {
  const range = checkRange(q, timeZone, allowed);
  const keys = [...new Set(q.groupBy)];
  // Ordered here, not by the statement: PostgreSQL would compare text keys by its collation; these compare by code unit.
  const sums = async (days: repo.DayRange) => (await repo.rollupSums(em, business, q, kind, days, timeZone, scales)).sort(byKeysThenBucket);
  const rows = await sums(range);
  const present = (row: RollupSums) => figures(row, keys);
  if (q.compare !== 'previous') return rows.map(present);
  const before = previousRange(range);
  return withPreviousRows(rows, await sums(before), q.interval, { current: range.fromDay, previous: before.fromDay }, present);
}

export async function metricAnalytics(em: EntityManager, business: string, q: AnalyticsQuery): Promise<MetricRow[]> {
  const { timeZone, scales } = await zoneAndScales(em, business, q.metric);
  const rows = await withPrevious<MetricRow>(em, business, q, 'metric', timeZone, ['metric', 'location', 'survey', 'channel', 'staff'], scales, (row, keys) =>
    metricFigures(row, scales, keys, q.metric),
  );
  return compared(rows, q, (row) => row.mean);
}

export async function npsAnalytics(em: EntityManager, business: string, q: AnalyticsQuery): Promise<NpsRow[]> {
  if (q.metric != null && !(await repo.isNpsStep(em, business, q.metric))) badInput('step', `'${q.metric}' is not an NPS step of this business`);
  const rows = await withPrevious<NpsRow>(
    em,
    business,
    q,
    'nps',
    await businessTimeZone(em, business),
    ['step', 'location', 'survey', 'channel', 'staff'],
    null,
    npsFigures,
  );
  return compared(rows, q, (row) => row.score);
}

/** Orders per bucket and those with at least one completed submission, by the order's location and channel when asked. */
export async function responseRate(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'interval' | 'location' | 'channel'> & { groupBy?: GroupKey[] },
): Promise<ResponseRateRow[]> {
  const groupBy = q.groupBy ?? [];
  const timeZone = await businessTimeZone(em, business);
  const range = checkRange({ ...q, groupBy }, timeZone, repo.RESPONSE_RATE_GROUPS);
  const keys = repo.RESPONSE_RATE_GROUPS.filter((k) => groupBy.includes(k));
  const rows = await repo.ordersPerBucket(em, business, { ...q, groupBy }, range, timeZone);
  return rows.map((r) => ({
    period: Number(r.period),
    ...Object.fromEntries(keys.map((k) => [k, r[k] ?? null])),
    orders: Number(r.orders),
    answered: Number(r.answered),
    rate: Number(r.orders) ? Number(r.answered) / Number(r.orders) : null,
  }));
}

export interface RecoveryRow {
  period: number;
  location?: string | null;
  opened: number;
  replied: number;
  repliedWithinHour: number;
  medianFirstReplyMinutes: number | null;
  resolved: number;
  recovered: number;
  recoveryRate: number | null;
  recoveredRevenue: Array<{ currency: string; amount: number }>;
}

/** Cases per bucket of their opening day: replies, their speed, resolutions and recoveries with the revenue they brought back. */
export async function recoveryAnalytics(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'interval' | 'location'> & { groupBy?: GroupKey[] },
): Promise<RecoveryRow[]> {
  const groupBy = q.groupBy ?? [];
  const timeZone = await businessTimeZone(em, business);
  const range = checkRange({ ...q, groupBy }, timeZone, repo.RECOVERY_GROUPS);
  const rows = await repo.casesPerBucket(em, business, { ...q, groupBy }, range, timeZone);
  return rows.map((r) => ({
    period: Number(r.period),
    ...(groupBy.includes('location') ? { location: r.location ?? null } : {}),
    opened: Number(r.opened),
    replied: Number(r.replied),
    repliedWithinHour: Number(r.replied_within_hour),
    medianFirstReplyMinutes: r.median_first_reply_minutes == null ? null : Number(r.median_first_reply_minutes),
    resolved: Number(r.resolved),
    recovered: Number(r.recovered),
    recoveryRate: Number(r.opened) ? Number(r.recovered) / Number(r.opened) : null,
    recoveredRevenue: (r.revenue ?? []).map((m) => ({ currency: m.currency, amount: Number(m.amount) })),
  }));
}

export interface ThemeRow {
  period: number;
  theme: string;
  location?: string | null;
  survey?: string | null;
  channel?: string | null;
  dish?: string | null;
  dishName?: string | null;
  positive: number;
  neutral: number;
  negative: number;
  total: number;
}

const checkTheme = (theme: string | null | undefined) => {
  if (theme != null && !isThemeName(theme)) badInput('theme', `must be a theme name such as cleanliness (${THEME_NAME_RULE})`);
};

/**
 * Per theme and bucket, the text answers read as speaking of it, by the theme's sentiment (docs/analytics.md): from
 * the theme rollup, kept with the stored analyses, so an answer counts once the workers have read it.
 */
export async function themeAnalytics(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'interval' | 'location' | 'survey' | 'channel'> & {
    groupBy?: GroupKey[];
    theme?: string | null;
    dish?: string | null;
  },
): Promise<ThemeRow[]> {
  const groupBy = q.groupBy ?? [];
  const timeZone = await businessTimeZone(em, business);
  const range = checkRange({ ...q, groupBy }, timeZone, repo.THEME_GROUPS);
  checkTheme(q.theme);
  const keys = repo.THEME_GROUPS.filter((k) => groupBy.includes(k));
  const rows = await repo.themesPerBucket(em, business, { ...q, groupBy }, range, timeZone);
  return rows.map((r) => {
    const [positive, neutral, negative] = [Number(r.positive), Number(r.neutral), Number(r.negative)];
    return {
      period: Number(r.period),
      theme: r.theme,
      ...Object.fromEntries(keys.map((k) => [k, r[k] ?? null])),
      ...(keys.includes('dish') ? { dishName: r.dish_name ?? null } : {}),
      positive,
      neutral,
      negative,
      total: positive + neutral + negative,
    };
  });
}

export const DEFAULT_THEME_WORDS = 10;
export const MAX_THEME_WORDS = 50;

export interface ThemeWordRow {
  theme: string;
  sentiment: string;
  word: string;
  count: number;
}

/** The words guests use most per theme and sentiment over the range (docs/analytics.md), from the word rollup. */
export async function themeWordAnalytics(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'location' | 'survey'> & { theme?: string | null; sentiment?: string | null; limit?: number | null },
): Promise<ThemeWordRow[]> {
  const timeZone = await businessTimeZone(em, business);
  const range = checkRange({ ...q, interval: 'total', groupBy: [] }, timeZone, []);
  checkTheme(q.theme);
  if (q.sentiment != null && !isSentiment(q.sentiment))
    badInput('sentiment', `must be one of ${SENTIMENT_LABELS.join(', ')}, not ${JSON.stringify(q.sentiment)}`);
  const limit = q.limit ?? DEFAULT_THEME_WORDS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_THEME_WORDS) badInput('limit', `must be an integer from 1 to ${MAX_THEME_WORDS}`);
  const rows = await repo.themeWords(em, business, { ...q, limit }, range);
  return rows.map((r) => ({ theme: r.theme, sentiment: r.sentiment, word: r.word, count: Number(r.count) }));
}

export async function menuItemAnalytics(
  em: EntityManager,
  business: string,
  q: Pick<AnalyticsQuery, 'from' | 'to' | 'metric'> & {
    minCount?: number | null;
    sort?: (typeof MENU_SORTS)[number] | null;
    order?: 'asc' | 'desc' | null;
    /** Only this source; both when unset (a `metric` filter means order ratings only: direct ones rate no metric). */
    source?: repo.MenuSource | null;
  },
): Promise<MenuItemRow[]> {
  const { timeZone } = await zoneAndScales(em, business, q.metric);
  const range = checkRange({ ...q, interval: 'total', groupBy: [] }, timeZone, []);
  const minCount = q.minCount ?? DEFAULT_MIN_COUNT;
  if (!Number.isInteger(minCount) || minCount < 1) badInput('minCount', 'must be a positive integer');
  const sources = q.source ? [q.source] : q.metric != null ? (['order'] as const) : repo.MENU_SOURCES;
  const sums = await repo.menuItemSums(em, business, range, q.metric, sources);
  return menuItemFigures(
    sums.map((r) => ({ menuItem: r.menu_item_id, name: r.name, source: r.source, n: Number(r.n), s: Number(r.s) })),
    q.metric ?? null,
    minCount,
    q.sort ?? 'shrunkMean',
    q.order ?? 'desc',
  );
}

/** Per step of one survey, over its responses created in the range: reached, answered, dropped off, median time. */
export async function funnel(em: EntityManager, business: string, q: Pick<AnalyticsQuery, 'from' | 'to'> & { survey: string }): Promise<FunnelStep[]> {
  if (!(await repo.isSurveyOf(em, business, q.survey))) badInput('survey', `'${q.survey}' is not a survey of this business`);
  checkRange({ ...q, interval: 'total', groupBy: [] }, 'UTC', []);
  const rows = await repo.funnelCounts(em, business, q.survey, q.from, q.to);
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
