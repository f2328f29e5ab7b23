import type { BuiltInTheme } from './lexicon/themes.lexicon.js';

export type TextLanguage = 'en' | 'ur' | 'ur-Latn' | 'mixed';
/** The languages a business's words are given in (a comment may mix them; a word is in one). */
export type WordLanguage = Exclude<TextLanguage, 'mixed'>;
export type SentimentLabel = 'positive' | 'neutral' | 'negative';

/**
 * A business's own reading of its guests: words added to a theme in a language (a theme that is not built in is the
 * business's own, such as `parking`), and built-in themes switched off. Stored later; taken as given here.
 */
export interface ThemeSettings {
  words?: readonly { theme: string; language: WordLanguage; words: readonly string[] }[];
  off?: readonly string[];
}

export interface ThemeFinding {
  theme: BuiltInTheme | string;
  sentiment: SentimentLabel;
  /** The guest's words that name the theme or judge it, folded, in the order written. */
  words: string[];
}

export interface DishFinding {
  /** The menu item's name and id. */
  name: string;
  menuItem: string;
  sentiment: SentimentLabel;
}

export interface TextAnalysis {
  language: TextLanguage;
  sentiment: { score: number; label: SentimentLabel };
  themes: ThemeFinding[];
  dishes: DishFinding[];
}
