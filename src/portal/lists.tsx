import type { ComponentChildren } from 'preact';
import { navigate, withQuery } from './router';
import { DateInput, dayStart, Empty, Field, Options, zoneName } from './ui';

/**
 * The list screens' filters, pages and empty state (Orders, Feedback, the Inbox, the set-up screens' pages): what a
 * list shows is said by its URL, so every filter and page can be bookmarked and reloaded.
 */

/** A list screen's filters live in its URL: a change replaces the address (back goes to the screen before) and page 0. */
export const setFilters = (query: URLSearchParams, changes: Record<string, string | undefined>) => navigate(withQuery(query, changes), { replace: true });

/**
 * A filter of a list screen, kept in the URL under `name`: "Any" first (unless `any` is false), then `choices`.
 * `changes` says what a pick changes in the URL, when it is more than `name` (a theme cleared clears its sentiment).
 */
export function FilterSelect(props: {
  query: URLSearchParams;
  name: string;
  label: string;
  choices: readonly (string | { id: string; name: string })[];
  value?: string;
  any?: boolean;
  changes?: (value: string) => Record<string, string | undefined>;
}) {
  const { query, name } = props;
  const changes = props.changes ?? ((value: string) => ({ [name]: value }));
  return (
    <Field label={props.label}>
      {(id) => (
        <select id={id} value={props.value ?? query.get(name) ?? ''} onChange={(e) => setFilters(query, changes(e.currentTarget.value))}>
          {props.any !== false && <option value="">Any</option>}
          <Options of={props.choices} />
        </select>
      )}
    </Field>
  );
}

/** A filtered list with nothing to show: "No X matches.", then a way to clear the filters (`clear`), else `children`. */
export function NoMatch({ what, query, clear, children }: { what: string; query: URLSearchParams; clear: string; children: ComponentChildren }) {
  return (
    <Empty>
      No {what} matches. {query.toString() ? <a href={clear}>Clear the filters</a> : children}
    </Empty>
  );
}

/** What the DateFilters ask for, as a filter of times (ms): from the start of From to the end of To, when set. */
export function datesOf(query: URLSearchParams): { gte?: number; lt?: number } | undefined {
  const from = query.get('from');
  const to = query.get('to');
  if (!from && !to) return undefined;
  return { ...(from ? { gte: dayStart(from) } : {}), ...(to ? { lt: dayStart(to) + 86_400_000 } : {}) };
}

/** A list screen's date filters, From and To (yyyy-mm-dd in the URL, both days included), in the business's zone. */
export function DateFilters({ query }: { query: URLSearchParams }) {
  return (
    <>
      <Field label={`From (${zoneName()})`}>
        {(id) => <DateInput id={id} value={query.get('from') ?? ''} onChange={(day) => setFilters(query, { from: day })} />}
      </Field>
      <Field label={`To (${zoneName()})`}>
        {(id) => <DateInput id={id} value={query.get('to') ?? ''} onChange={(day) => setFilters(query, { to: day })} />}
      </Field>
    </>
  );
}

/** The pages of a list (`list`, as the API pages it), each an address of this screen with its filters kept. */
export function Pager({ list, query }: { list: { page: number; hasMore: boolean; total: number }; query: URLSearchParams }) {
  const { page, hasMore, total } = list;
  const href = (p: number) => withQuery(query, { page: String(p) });
  return (
    <nav class="pager" aria-label="Pages">
      {page > 0 ? (
        <a href={href(page - 1)} rel="prev">
          Previous
        </a>
      ) : (
        <span />
      )}
      <span>
        Page {page + 1} · {total} in all
      </span>
      {hasMore ? (
        <a href={href(page + 1)} rel="next">
          Next
        </a>
      ) : (
        <span />
      )}
    </nav>
  );
}
