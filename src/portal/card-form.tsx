import type { ComponentChildren } from 'preact';

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
