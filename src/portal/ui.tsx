import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './graphql';

/** Loads when `key` changes; `reload` runs it again (after a failure, or after a change). */
export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef(0);
  const run = useCallback(() => {
    const n = ++latest.current;
    setState((s) => ({ data: s.data, loading: true }));
    load().then(
      (data) => n === latest.current && setState({ data, loading: false }),
      (error) => n === latest.current && setState({ error, loading: false }),
    );
  }, [key]);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A failed call says so, in words, with a way to try again. */
export function Failure({ error, retry }: { error: unknown; retry?: () => void }) {
  const network = error instanceof ApiError && error.network;
  return (
    <div class="failure" role="alert">
      <p>{network ? 'The service could not be reached. ' : ''}{message(error)}</p>
      {retry && <button type="button" onClick={retry}>Try again</button>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" role="status">Loading {what}…</p>;
}

export function Loaded<T>({ state, what, children }: { state: { data?: T; error?: unknown; loading: boolean; reload: () => void }; what: string; children: (data: T) => ComponentChildren }) {
  if (state.error) return <Failure error={state.error} retry={state.reload} />;
  if (state.data === undefined) return <Loading what={what} />;
  return <>{children(state.data)}</>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/**
 * A form's call: `busy` while it runs, the API's field errors by field name (shown beside each field) and the rest as
 * one message. The form's inputs are never cleared on an error.
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  const fields = error instanceof ApiError ? error.byField : {};
  return { busy, error, fields, run, clear: () => setError(undefined) };
}

let fieldIds = 0;

/** A labelled control, with its error (from `details`) beside it and tied to it for screen readers. */
export function Field(props: { label: string; error?: string; hint?: string; children: (id: string, describedBy: string | undefined) => ComponentChildren }) {
  const [id] = useState(() => `f${++fieldIds}`);
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id}>{props.label}</label>
      {props.children(id, describedBy)}
      {props.hint && <small id={`${id}-hint`} class="muted">{props.hint}</small>}
      {props.error && <span id={`${id}-error`} class="field-error">{props.error}</span>}
    </div>
  );
}

/** A labelled select among fixed words that are their own labels (a role, a status, a step type, a channel). */
export function ChoiceField<T extends string>(props: { label: string; error?: string; hint?: string; value: T; choices: readonly T[]; onChange: (value: T) => void }) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(id, d) => (
        <select id={id} aria-describedby={d} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as T)}>
          {props.choices.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
      )}
    </Field>
  );
}

/**
 * A form in a card, named for screen readers by `label`, that never leaves the page: the browser's own submission
 * is prevented and `onSubmit` sends the form through the API instead.
 */
export function CardForm({ label, onSubmit, children }: { label: string; onSubmit: () => unknown; children: ComponentChildren }) {
  return (
    <form
      class="card"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** What is left of a form error once the fields named in it show theirs. */
export function FormError({ error, shown }: { error: unknown; shown?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.details.length && error.details.every((d) => shown?.includes(d.field))) {
    return <p class="failure" role="alert">Please correct the highlighted fields.</p>;
  }
  return <Failure error={error} />;
}

/**
 * A list shown as a table, as every screen shows one: a caption that names it for screen readers (the heading above
 * names it for the eye), a header cell for each column, then the rows (`<tr>`s) given as children.
 */
export function Table({ caption, columns, children }: { caption: string; columns: string[]; children: ComponentChildren }) {
  return (
    <table>
      <caption class="sr-only">{caption}</caption>
      <thead><tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A secret the API shows once: a warning, the value, a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="region" aria-label={label}>
      <p><strong>{label}</strong>: shown this once. Store it now (in your password manager or the other system's settings): it cannot be shown again.</p>
      <code data-secret>{value}</code>
      <button type="button" onClick={() => navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false))}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

export function CopyText({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" class="secondary" aria-label={`Copy ${label}`} onClick={() => navigator.clipboard?.writeText(value).then(() => setCopied(true))}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/**
 * Dates in the business's time zone (its setting, else UTC), named beside each date and date filter so nobody
 * wonders whose midnight a day starts at. Set once when the portal has read the business.
 */
let timeZone = 'UTC';
let dateTime = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
let dayParts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
export function setTimeZone(zone: string | null | undefined) {
  timeZone = zone || 'UTC';
  dateTime = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
  dayParts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}
export const zoneName = () => timeZone;
export const formatDate = (ms: number | null | undefined) => (ms == null ? '—' : `${dateTime.format(ms)} ${timeZone}`);
export const formatDay = (ms: number) => new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium' }).format(ms);

/** The wall clock of the business's zone at `ms`, as if it were UTC (so its difference from `ms` is the offset). */
function wallClock(ms: number): number {
  const p = Object.fromEntries(dayParts.formatToParts(ms).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}
/** yyyy-mm-dd of the day `ms` falls on in the business's time zone. */
export const dayOf = (ms: number) => new Date(wallClock(ms)).toISOString().slice(0, 10);
/** A date-time input's yyyy-mm-ddThh:mm, read on the business's wall clock (ms). */
export function zonedTime(local: string): number {
  const asUtc = Date.parse(`${local}Z`);
  // Twice: the offset at the guess may differ from the one at the answer when a clock change falls in between.
  const guess = asUtc - (wallClock(asUtc) - Math.floor(asUtc / 1000) * 1000);
  return asUtc - (wallClock(guess) - Math.floor(guess / 1000) * 1000);
}
/** A yyyy-mm-dd of a date input, as the start of that day in the business's time zone (ms). */
export const dayStart = (day: string) => zonedTime(`${day}T00:00:00`);

export function Pager({ page, hasMore, total, href }: { page: number; hasMore: boolean; total: number; href: (page: number) => string }) {
  return (
    <nav class="pager" aria-label="Pages">
      {page > 0 ? <a href={href(page - 1)} rel="prev">Previous</a> : <span />}
      <span>Page {page + 1} · {total} in all</span>
      {hasMore ? <a href={href(page + 1)} rel="next">Next</a> : <span />}
    </nav>
  );
}

/** Saves a file the browser made (CSV, QR code) under `name`. */
export function download(name: string, content: Blob) {
  const url = URL.createObjectURL(content);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "12 min", "3 h", "4 d": how long ago, or how long, rounded down to the unit a person reads at a glance. */
export function formatMinutes(minutes: number): string {
  const m = Math.max(0, Math.floor(minutes));
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h` : `${Math.floor(h / 24)} d`;
}
export const formatAge = (since: number, now: number) => formatMinutes((now - since) / 60_000);

/** The time now, moving on every `everyMs` (a minute by default), so ages shown on a screen left open stay true. */
export function useNow(everyMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
