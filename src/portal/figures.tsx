import type { ComponentChildren } from 'preact';
import { MIN_SAMPLE } from '../shared/sample';
import { DateInput, dayOf, dayStart, Field, Options, plural } from './ui';

/** The figures' screens (Overview, Themes): the range they read and how a small sample is worded. */
export const DAY = 86_400_000;

/** The range the URL asks for (yyyy-mm-dd, both days included), else the last 28 days up to today. */
export function rangeOf(query: URLSearchParams) {
  const today = dayOf(Date.now());
  const to = query.get('to') || today;
  const from = query.get('from') || dayOf(dayStart(to) - 27 * DAY);
  const start = dayStart(from);
  const end = dayStart(to) + DAY;
  const days = Math.max(1, Math.round((end - start) / DAY));
  // Buckets a chart can show: days for two months, then weeks for a year, then months.
  const interval = days <= 62 ? 'day' : days <= 366 ? 'week' : 'month';
  return { from, to, start, end, previousStart: start - (end - start), interval } as const;
}

export const percent = (x: number | null | undefined) => (x == null ? '—' : `${Math.round(x * 100)}%`);

/**
 * A figure resting on `count` ratings (answers, orders, cases) is judged from MIN_SAMPLE on (src/shared/sample.ts, the
 * API's own line): below it the count leads, "too few to judge yet", and the figure follows as "so far", so a "0%" of
 * two ratings does not read as a verdict. Every tile of the Overview, and the Themes screen, says it this way.
 */
export function Sampled({
  count,
  noun,
  many = `${noun}s`,
  soFar,
  children,
}: {
  count: number;
  noun: string;
  many?: string;
  soFar: ComponentChildren;
  children: ComponentChildren;
}) {
  if (!count)
    return (
      <>
        <strong>—</strong> no {many} in these dates
      </>
    );
  if (count < MIN_SAMPLE) {
    return (
      <>
        <strong>{plural(count, noun, many)}</strong> <span class="too-few">too few to judge yet</span> <span class="muted">(so far {soFar})</span>
      </>
    );
  }
  return <>{children}</>;
}

/** The dates and location every figures screen filters by, in its URL; `children`: the screen's own filters after them. */
export function ReportFilters(props: {
  range: { from: string; to: string };
  location: string | undefined;
  locations: readonly { id: string; name: string }[] | undefined;
  setQuery: (changes: Record<string, string>) => void;
  children?: ComponentChildren;
}) {
  const { range, location, setQuery } = props;
  return (
    <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <Field label="From">{(id) => <DateInput id={id} value={range.from} onChange={(day) => setQuery({ from: day })} />}</Field>
      <Field label="To">{(id) => <DateInput id={id} value={range.to} onChange={(day) => setQuery({ to: day })} />}</Field>
      <Field label="Location">
        {(id) => (
          <select id={id} value={location ?? ''} onChange={(e) => setQuery({ location: e.currentTarget.value })}>
            <option value="">All locations</option>
            <Options of={props.locations ?? []} />
          </select>
        )}
      </Field>
      {props.children}
    </form>
  );
}
