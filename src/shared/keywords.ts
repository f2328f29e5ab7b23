/**
 * Whole-word keyword matching that a restaurant's staff would expect: case- and accent-insensitive ("Allergic",
 * "allérgic"), words not parts of words ("ill" is not in "grill"), several words as a phrase, and Urdu written
 * with its harakat or without, in Arabic or Urdu letter forms (ي/ی, ك/ک, ه/ہ).
 */

// Arabic letter forms an Urdu keyboard may write, folded to the Urdu ones (hamza and madda forms decompose under
// NFKD and lose their mark). Do-chashmi he (ھ) stays apart: کھانا (food) is not کہانا.
const LETTER_FOLDS: Record<string, string> = { ي: 'ی', ى: 'ی', ك: 'ک', ه: 'ہ', ة: 'ہ' };
const FOLDABLE = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'gu');

/** A text folded: decomposed, marks and joiners dropped, lower case, Urdu letter forms unified. */
export const foldText = (text: string): string =>
  text
    .normalize('NFKD')
    // biome-ignore lint/suspicious/noMisleadingCharacterClass: combining marks are removed one by one, on purpose.
    .replace(/[\p{M}\u200c\u200d\u0640]/gu, '')
    .toLowerCase()
    .replace(FOLDABLE, (c) => LETTER_FOLDS[c]);

/** The words of a text, folded (foldText). */
export function wordsOf(text: string): string[] {
  return foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A matcher for some keywords (each a word or a phrase): the first one a text holds as whole words, or null. It takes
 * the text's words (wordsOf), so a text matched against several rules is folded once.
 */
export function keywordMatcher(keywords: readonly string[]): (words: readonly string[]) => string | null {
  const phrases = keywords.map((keyword) => ({ keyword, words: wordsOf(keyword) })).filter((p) => p.words.length);
  return (words) => {
    if (!phrases.length) return null;
    for (const { keyword, words: phrase } of phrases) {
      for (let i = 0; i + phrase.length <= words.length; i++) {
        if (phrase.every((word, j) => words[i + j] === word)) return keyword;
      }
    }
    return null;
  };
}
