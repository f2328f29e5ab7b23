import type { ComponentChildren } from 'preact';

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
