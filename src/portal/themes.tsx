/** What the workers read in a text answer (its `analysis`), as the feedback, the case page and the Themes screen show it. */
export interface ThemeShape {
  theme: string;
  sentiment: string;
}
export interface AnalysisShape {
  step: string;
  themes: readonly ThemeShape[];
}

/**
 * The themes read in one answer, each "cleanliness · negative": the words say it, the colour only repeats it.
 * Nothing when the answer names no theme (or is not read yet).
 */
export function ThemeChips({ themes }: { themes: readonly ThemeShape[] | undefined }) {
  if (!themes?.length) return null;
  return (
    <ul class="chips" aria-label="Themes read">
      {themes.map((t) => (
        <li key={t.theme} class={`chip ${t.sentiment}`}>
          {t.theme} · {t.sentiment}
        </li>
      ))}
    </ul>
  );
}

/** The themes read in the answer to `step`, from the submission's analyses. */
export const themesOf = (analysis: readonly AnalysisShape[] | null | undefined, step: string) => analysis?.find((a) => a.step === step)?.themes;

const literal = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A guest's text with the words that carried a theme marked (`<mark>`), matched as whole words (or phrases: a
 * business's own words may be), in any case: the analysis keeps the words, lower case, never the text itself.
 */
export function Highlighted({ text, words }: { text: string; words: readonly string[] }) {
  const list = [...new Set(words.map((w) => w.trim()).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!list.length) return <>{text}</>;
  // Letters, marks and digits of any script make a word (Urdu's too); a match must not sit inside a longer one.
  const pattern = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])(${list.map(literal).join('|')})(?![\\p{L}\\p{M}\\p{N}])`, 'giu');
  const parts = text.split(pattern);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
