import type { ComponentChildren, InputHTMLAttributes, RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
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
      <p>
        {network ? 'The service could not be reached. ' : ''}
        {message(error)}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Loaded<T>({
  state,
  what,
  children,
}: {
  state: { data?: T; error?: unknown; loading: boolean; reload: () => void };
  what: string;
  children: (data: T) => ComponentChildren;
}) {
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
      {props.hint && (
        <small id={`${id}-hint`} class="muted">
          {props.hint}
        </small>
      )}
      {props.error && (
        <span id={`${id}-error`} class="field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}

/** A labelled text input, its error (which marks it invalid) and hint beside it; `input`: its other attributes (type…). */
export function TextField(props: {
  label: string;
  error?: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  input?: InputHTMLAttributes<HTMLInputElement>;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(id, d) => (
        <input
          {...props.input}
          id={id}
          aria-describedby={d}
          aria-invalid={!!props.error}
          value={props.value}
          onInput={(e) => props.onValue(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A labelled select among fixed words that are their own labels (a role, a status, a step type, a channel). */
export function ChoiceField<T extends string>(props: {
  label: string;
  error?: string;
  hint?: string;
  value: T;
  choices: readonly T[];
  onChange: (value: T) => void;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(id, d) => (
        <select id={id} aria-describedby={d} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as T)}>
          <Options of={props.choices} />
        </select>
      )}
    </Field>
  );
}

/**
 * A form in a card, named for screen readers by `label`, that never leaves the page: the browser's own submission
 * is prevented and `onSubmit` sends the form through the API instead.
 */
export function CardForm({ label, onSubmit, children, ...props }: { label: string; onSubmit: () => unknown; class?: string; children: ComponentChildren }) {
  return (
    <form
      class={props.class ? `card ${props.class}` : 'card'}
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
    return (
      <p class="failure" role="alert">
        Please correct the highlighted fields.
      </p>
    );
  }
  return <Failure error={error} />;
}

/**
 * A button that asks first (`ask`, named `label` for screen readers): the question (`question`) in its place, with
 * the button that does it (`answer`) and Cancel; `children` after them (the failure of the answer).
 */
export function AskFirst(props: {
  id: string;
  asking: boolean;
  ask: string;
  label: string;
  question: string;
  answer: string;
  busy: boolean;
  onAsk: () => void;
  onAnswer: () => void;
  onCancel: () => void;
  askRef?: RefObject<HTMLButtonElement | null>;
  cancelRef?: RefObject<HTMLButtonElement | null>;
  children?: ComponentChildren;
}) {
  if (!props.asking)
    return (
      <button type="button" class="danger" ref={props.askRef} aria-label={props.label} onClick={props.onAsk}>
        {props.ask}
      </button>
    );
  return (
    <div class="confirm" role="alertdialog" aria-labelledby={props.id}>
      <p id={props.id}>{props.question}</p>
      <button type="button" class="danger" disabled={props.busy} onClick={props.onAnswer}>
        {props.answer}
      </button>{' '}
      <button type="button" class="secondary" ref={props.cancelRef} onClick={props.onCancel}>
        Cancel
      </button>
      {props.children}
    </div>
  );
}

/**
 * "Delete…" that asks first, saying what goes with the thing; `onDelete` runs the deletion (its failure is shown here).
 * The question takes the focus, and a cancel gives it back to the button, so a keyboard user is never left nowhere.
 */
function ConfirmDelete({ name, consequence, onDelete }: { name: string; consequence: string; onDelete: () => Promise<unknown> }) {
  const [asking, setAsking] = useState(false);
  const [id] = useState(() => `confirm${++fieldIds}`);
  const remove = useSubmit();
  const cancel = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  // As the question is drawn, not after the next frame: a key pressed at once must find the focus already moved.
  useLayoutEffect(() => {
    if (asking) cancel.current?.focus();
    else if (asked.current) ask.current?.focus();
    asked.current ||= asking;
  }, [asking]);
  return (
    <AskFirst
      id={id}
      asking={asking}
      ask="Delete…"
      label={`Delete ${name}…`}
      question={`Delete ${name}? ${consequence}`}
      answer="Delete it"
      busy={remove.busy}
      onAsk={() => setAsking(true)}
      onAnswer={() => void remove.run(onDelete)}
      onCancel={() => setAsking(false)}
      askRef={ask}
      cancelRef={cancel}
    >
      {remove.error ? <Failure error={remove.error} /> : null}
    </AskFirst>
  );
}

/**
 * A list shown as a table, as every screen shows one: a caption that names it for screen readers (the heading above
 * names it for the eye; none when `labelledBy` names the heading that does), a header cell for each column, then the
 * rows (`<tr>`s) given as children.
 */
export function Table(props: { caption?: string; labelledBy?: string; class?: string; columns: readonly string[]; children: ComponentChildren }) {
  return (
    <table class={props.class} aria-labelledby={props.labelledBy}>
      {props.caption && <caption class="sr-only">{props.caption}</caption>}
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}

/** Cards edited one at a time: which is open, and what was last done (for a status line); a change reloads the list. */
export function useCardEdits(reload: () => void) {
  const [editing, setEditing] = useState<string>();
  const [done, setDone] = useState<string>();
  const changed = (what: string) => {
    setEditing(undefined);
    setDone(what);
    reload();
  };
  return { editing, setEditing, done, changed };
}

/** The line that says what was last done on a screen of cards ("Gulberg saved."), read out as it changes. */
export function DoneNote({ done }: { done: string | undefined }) {
  return (
    <p class="ok" role="status">
      {done}
    </p>
  );
}

/**
 * The cards of a set-up screen (locations, saved replies, alert rules): each thing's name and `facts`; for a role that
 * may change them, "Edit", which opens its `form` in place, its other `actions` (an on/off switch), then "Delete…",
 * which asks first (`consequence`) and, once `onDelete` is done, says so in the status line and reloads the list.
 */
export function Cards<T extends { id: string; name: string }>(props: {
  label: string;
  items: readonly T[];
  facts: (item: T) => ComponentChildren;
  edits: ReturnType<typeof useCardEdits>;
  mayChange: boolean;
  consequence: string;
  onDelete: (item: T) => Promise<unknown>;
  actions?: (item: T) => ComponentChildren;
  form: (item: T) => ComponentChildren;
}) {
  const { editing, setEditing, changed } = props.edits;
  return (
    <ul class="cards" aria-label={props.label}>
      {props.items.map((item) => (
        <li key={item.id} class="card">
          <h2 class="card-title">{item.name}</h2>
          {props.facts(item)}
          {props.mayChange && (
            <div class="actions">
              <button
                type="button"
                class="secondary"
                aria-expanded={editing === item.id}
                aria-label={`Edit ${item.name}`}
                onClick={() => setEditing(editing === item.id ? undefined : item.id)}
              >
                Edit
              </button>
              {props.actions?.(item)}
              <ConfirmDelete
                name={item.name}
                consequence={props.consequence}
                onDelete={async () => {
                  await props.onDelete(item);
                  changed(`${item.name} deleted.`);
                }}
              />
            </div>
          )}
          {editing === item.id && props.form(item)}
        </li>
      ))}
    </ul>
  );
}

/** A form's submit button, "Saving…" while its call runs, and "Saved." beside it once it has (`saved`). */
export function SaveButton({ busy, label, saved }: { busy: boolean; label: string; saved?: boolean }) {
  return (
    <>
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : label}
      </button>
      {saved && (
        <span role="status" class="ok">
          {' '}
          Saved.
        </span>
      )}
    </>
  );
}

/** The `<option>`s of a select: words that are their own labels, or things chosen by id and shown by name. */
export function Options({ of }: { of: readonly (string | { id: string; name: string })[] }) {
  return (
    <>
      {of.map((o) =>
        typeof o === 'string' ? (
          <option key={o} value={o}>
            {o}
          </option>
        ) : (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ),
      )}
    </>
  );
}

/** A secret the API shows once: a warning, the value, a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="secret" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown this once. Store it now (in your password manager or the other system's settings): it cannot be shown again.
      </p>
      <code data-secret>{value}</code>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </section>
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
 * Dates, numbers and words in the business's locale (English as written in its country, else en-GB) and dates in its
 * time zone (its setting, else UTC), named beside each date and date filter so nobody wonders whose midnight a day
 * starts at. Set once when the portal has read the business; every date the portal shows or reads goes through here.
 */
let timeZone = 'UTC';
let zoneSet = false;
let locale = 'en-GB';
let dateTime!: Intl.DateTimeFormat;
let dayOnly!: Intl.DateTimeFormat;
let dayParts!: Intl.DateTimeFormat;
let plurals!: Intl.PluralRules;
let counts!: Intl.NumberFormat;
const moneyFormats = new Map<string, (n: number) => string>();
function setFormats() {
  dateTime = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium', timeStyle: 'short' });
  dayOnly = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium' });
  dayParts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  plurals = new Intl.PluralRules(locale);
  counts = new Intl.NumberFormat(locale);
  moneyFormats.clear();
}
setFormats();
/** The business's locale: English as its country writes it (en-PK, en-US...), when the browser knows that locale. */
function localeOf(country: string | null | undefined): string {
  const wanted = country && /^[A-Z]{2}$/i.test(country) ? `en-${country.toUpperCase()}` : undefined;
  return wanted && Intl.DateTimeFormat.supportedLocalesOf(wanted).length ? wanted : 'en-GB';
}
export function setTimeZone(zone: string | null | undefined, country?: string | null) {
  zoneSet = !!zone;
  timeZone = zone || 'UTC';
  locale = localeOf(country);
  setFormats();
}
export const zoneName = () => timeZone;
/** Whether the business has a time zone of its own (else dates are read in UTC, a guess). */
export const zoneKnown = () => zoneSet;
export const formatDate = (ms: number | null | undefined) => (ms == null ? '—' : `${dateTime.format(ms)} ${timeZone}`);
export const formatDay = (ms: number) => dayOnly.format(ms);

/** A count in the business's locale: 2,350. */
export const formatCount = (n: number) => counts.format(n);
/** "1 order", "2 orders", "1,250 orders": the word's form for `n` (Intl.PluralRules), `many` when not just `one` + s. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${counts.format(n)} ${plurals.select(n) === 'one' ? one : many}`;
}
/**
 * An amount of money in its currency, as the business's locale writes it ("PKR 2,350", "US$25.50"): the currency's
 * own decimals, none for a whole amount, and every decimal the amount has (never rounded away). A currency the
 * browser does not know is written after the number.
 */
export function formatMoney(amount: number | string | null | undefined, currency: string | null | undefined): string {
  if (amount == null || amount === '') return '—';
  const value = Number(amount);
  if (!Number.isFinite(value)) return String(amount);
  const decimals = (String(amount).split('.')[1] ?? '').length;
  const key = `${currency}/${decimals}`;
  let format = moneyFormats.get(key);
  if (!format) {
    let money: Intl.NumberFormat | undefined;
    try {
      const digits = new Intl.NumberFormat(locale, { style: 'currency', currency: currency ?? '' }).resolvedOptions().maximumFractionDigits ?? 2;
      const options = { style: 'currency', currency, maximumFractionDigits: Math.min(Math.max(digits, decimals), 6), trailingZeroDisplay: 'stripIfInteger' };
      money = new Intl.NumberFormat(locale, options as Intl.NumberFormatOptions);
    } catch {
      // Not an ISO 4217 code the browser knows: the number, then the code as given.
    }
    const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
    format = money ? (n) => money.format(n) : (n) => `${plain.format(n)}${currency ? ` ${currency}` : ''}`;
    moneyFormats.set(key, format);
  }
  return format(value);
}

/** The wall clock of the business's zone at `ms`, as if it were UTC (so its difference from `ms` is the offset). */
function wallClock(ms: number): number {
  const p = Object.fromEntries(dayParts.formatToParts(ms).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}
/** yyyy-mm-dd of the day `ms` falls on in the business's time zone. */
export const dayOf = (ms: number) => new Date(wallClock(ms)).toISOString().slice(0, 10);
/** yyyy-mm-dd hh:mm:ss on the business's wall clock at `ms`: a time a spreadsheet reads, its zone named in the header. */
export const localDateTime = (ms: number) => new Date(wallClock(ms)).toISOString().slice(0, 19).replace('T', ' ');
/** A date-time input's yyyy-mm-ddThh:mm, read on the business's wall clock (ms). */
export function zonedTime(local: string): number {
  const asUtc = Date.parse(`${local}Z`);
  // Twice: the offset at the guess may differ from the one at the answer when a clock change falls in between.
  const guess = asUtc - (wallClock(asUtc) - Math.floor(asUtc / 1000) * 1000);
  return asUtc - (wallClock(guess) - Math.floor(guess / 1000) * 1000);
}
/** A yyyy-mm-dd of a date input, as the start of that day in the business's time zone (ms). */
export const dayStart = (day: string) => zonedTime(`${day}T00:00:00`);

/** A line's total: as the order gave it, else its quantity times its unit price (2 × 490 is 980, not "—"). */
function lineTotal(line: { quantity?: number | null; unitPrice?: number | string | null; totalPrice?: number | string | null }): number | string | null {
  if (line.totalPrice != null) return line.totalPrice;
  if (line.unitPrice == null) return null;
  const total = Number(line.unitPrice) * (line.quantity ?? 1);
  // Cents as integers, so 3 × 0.1 is 0.3.
  return Number.isFinite(total) ? Math.round(total * 1e6) / 1e6 : null;
}

interface OrderLine {
  id: string;
  name?: string | null;
  itemId?: string | null;
  itemComment?: string | null;
  quantity?: number | null;
  unitPrice?: number | string | null;
  totalPrice?: number | string | null;
}

/** An order's lines: each item (its comment beside it), its quantity, its unit price (with `unitPrice`), its total. */
export function OrderLines({ items, currency, unitPrice }: { items: readonly OrderLine[]; currency: string | null | undefined; unitPrice?: boolean }) {
  return (
    <Table caption="Order lines" columns={unitPrice ? ['Item', 'Quantity', 'Unit price', 'Total'] : ['Item', 'Quantity', 'Price']}>
      {items.map((i) => (
        <tr key={i.id}>
          <td>
            {i.name ?? i.itemId ?? '—'}
            {i.itemComment ? ` (${i.itemComment})` : ''}
          </td>
          <td class="number">{i.quantity == null ? '—' : formatCount(i.quantity)}</td>
          {unitPrice && <td class="number">{formatMoney(i.unitPrice, currency)}</td>}
          <td class="number">{formatMoney(lineTotal(i), currency)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** A calendar day (yyyy-mm-dd) as the business's locale writes one: "30 Oct 2026". */
const formatIsoDay = (day: string) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', dateStyle: 'medium' }).format(Date.UTC(y, m - 1, d));
};

/**
 * The day a person typed, as yyyy-mm-dd: "2026-10-30", "30 Oct 2026", "October 30, 2026", or three numbers in the
 * order the business's locale writes them (30/10/2026 in en-GB). Undefined until it is a whole date (a 4-digit year).
 */
function parseDay(text: string): string | undefined {
  const t = text.trim();
  let y: number, m: number, d: number;
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else {
    const parts = t.split(/[\s,./-]+/).filter(Boolean);
    if (parts.length !== 3) return undefined;
    const year = parts.findIndex((p) => /^\d{4}$/.test(p));
    if (year < 0) return undefined;
    y = Number(parts[year]);
    const rest = parts.filter((_, i) => i !== year);
    const word = rest.findIndex((p) => /^\p{L}+$/u.test(p));
    if (word >= 0) {
      const name = rest[word].toLowerCase();
      const months = Array.from({ length: 12 }, (_, i) =>
        new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long' }).format(Date.UTC(2000, i, 1)).toLowerCase(),
      );
      m = name.length >= 3 ? months.findIndex((month) => month.startsWith(name)) + 1 : 0;
      const day = rest[1 - word];
      if (!/^\d{1,2}$/.test(day)) return undefined;
      d = Number(day);
    } else {
      if (!rest.every((p) => /^\d{1,2}$/.test(p))) return undefined;
      const order = new Intl.DateTimeFormat(locale, { timeZone: 'UTC' })
        .formatToParts(0)
        .map((p) => p.type)
        .filter((p) => p === 'day' || p === 'month');
      [d, m] = order[0] === 'day' ? [Number(rest[0]), Number(rest[1])] : [Number(rest[1]), Number(rest[0])];
    }
  }
  const at = new Date(Date.UTC(y, m - 1, d));
  if (y < 1000 || at.getUTCFullYear() !== y || at.getUTCMonth() !== m - 1 || at.getUTCDate() !== d) return undefined;
  return at.toISOString().slice(0, 10);
}

/**
 * A day typed as the business's locale writes dates (the browser's own date field would show the browser's format,
 * mm/dd/yyyy beside the portal's "30 Oct 2026"): `value` and `onChange` speak yyyy-mm-dd ('' for none). What is typed
 * stays as typed while the field has focus; a whole date is taken at once, and written the locale's way on leaving.
 */
export function DateInput({ id, value, onChange, describedBy }: { id: string; value: string; onChange: (day: string) => void; describedBy?: string }) {
  const [typed, setTyped] = useState<string>();
  const bad = typed !== undefined && typed.trim() !== '' && parseDay(typed) === undefined;
  return (
    <input
      id={id}
      type="text"
      autoComplete="off"
      class="date"
      placeholder={formatIsoDay('2026-10-30')}
      aria-describedby={describedBy}
      aria-invalid={bad}
      value={typed ?? (value ? formatIsoDay(value) : '')}
      onInput={(e) => {
        const text = e.currentTarget.value;
        setTyped(text);
        const day = text.trim() === '' ? '' : parseDay(text);
        if (day !== undefined && day !== value) onChange(day);
      }}
      onBlur={() => !bad && setTyped(undefined)}
    />
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
