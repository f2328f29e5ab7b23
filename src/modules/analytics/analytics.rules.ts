import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { localDate } from '../../shared/time-zone.js';
import { MIN_SAMPLE } from '../../shared/sample.js';

export const INTERVALS = ['day', 'week', 'month', 'total'] as const;
export type Interval = (typeof INTERVALS)[number];
export const GROUP_KEYS = ['metric', 'step', 'location', 'survey', 'channel', 'staff', 'dish'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
/** A daily series longer than this is a 400: a dashboard asks for weeks or months instead. */
const MAX_DAILY_DAYS = 400;
const DAY_MS = 86_400_000;

export interface RangeInput {
  from: number;
  to: number;
  interval: Interval;
  groupBy: GroupKey[];
}

/**
 * A query's range as calendar days of the business's time zone: every day that overlaps [from, to). Checked here for
 * every door: from before to, a daily series of at most MAX_DAILY_DAYS, group keys the query knows.
 */
export function checkRange(input: RangeInput, timeZone: string, allowedGroups: readonly GroupKey[]) {
  const checks = new Checks();
  if (!Number.isSafeInteger(input.from) || input.from < 0) checks.fail('from', 'must be a time in milliseconds since the epoch');
  if (!Number.isSafeInteger(input.to) || input.to < 0) checks.fail('to', 'must be a time in milliseconds since the epoch');
  if (input.from >= input.to) checks.fail('from', 'must be before to');
  else if (input.interval === 'day' && input.to - input.from > MAX_DAILY_DAYS * DAY_MS) {
    checks.fail('interval', `a daily series covers at most ${MAX_DAILY_DAYS} days: ask for week or month`);
  } else if (input.to - input.from > 20 * 366 * DAY_MS) checks.fail('to', 'a range covers at most 20 years');
  for (const key of input.groupBy) {
    if (!allowedGroups.includes(key)) checks.fail('groupBy', `'${key}' is not one of ${allowedGroups.join(', ')}`);
  }
  checks.throwIfAny();
  return { fromDay: localDate(input.from, timeZone), lastDay: localDate(input.to - 1, timeZone) };
}

/**
 * Groups compared against each other (locations, staff) with fewer answers than this are marked insufficient and not
 * ranked; dishes with fewer ratings are left out. The portal's "too few to judge yet" draws the same line.
 */
export const DEFAULT_MIN_COUNT = MIN_SAMPLE;

export function badInput(field: string, message: string): never {
  throw AppError.validation([{ field, message }]);
}
