import { Field } from './ui';

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
