import type { Checks } from './validation.js';

/** Whether `name` is an IANA time zone this runtime knows (`Europe/London`, `UTC`); offsets like `+05:00` are not. */
export function isTimeZone(name: string): boolean {
  if (name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The one rule for a time zone any door writes (locations, businesses): an IANA name, or null to inherit. */
export function checkTimeZone(checks: Checks, field: string, value: unknown) {
  if (value == null) return;
  if (typeof value !== 'string' || !isTimeZone(value)) checks.fail(field, `${JSON.stringify(value)} is not an IANA time zone name (e.g. Europe/London)`);
}

// Building a formatter costs far more than using one (it loads the zone's rules): one per zone, kept.
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(ms: number, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    if (dateFormats.size < 1000) dateFormats.set(timeZone, format);
  }
  return format.format(new Date(ms));
}
