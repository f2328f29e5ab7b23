import { editDistance } from './dish-matcher.rules.js';
import { ROMAN_URDU_SPELLINGS } from './lexicon/roman-urdu.lexicon.js';

/**
 * Finds the lexicon's spelling of a Latin word: as written, a listed Roman Urdu spelling ("bht" → "bohat"), with
 * drawn-out letters shortened ("achaaa", "soooo"), one slip away from a known word, both of five letters or more (isSlip)
 * ("delicous", "helpfull"), or the same consonants as exactly one known Roman Urdu word ("mehanga" → "mehnga").
 * Urdu script is looked up as folded. Answers are memoised: a week's comments repeat their words.
 */
const MAX_WORD = 24;

export class Normaliser {
  private readonly deletions = new Map<string, string | null>();
  private readonly skeletons = new Map<string, string | null>();
  private readonly memo = new Map<string, string>();

  constructor(
    private readonly known: ReadonlySet<string>,
    romanUrdu: Iterable<string>,
  ) {
    for (const word of known) {
      if (word.length < 5 || /[^a-z]/.test(word)) continue;
      for (const d of [word, ...deletionsOf(word)]) this.deletions.set(d, this.deletions.has(d) && this.deletions.get(d) !== word ? null : word);
    }
    for (const word of romanUrdu) {
      const key = skeleton(word);
      if (key.length < 3) continue;
      this.skeletons.set(key, this.skeletons.has(key) && this.skeletons.get(key) !== word ? null : word);
    }
  }

  normalise(form: string): string {
    let found = this.memo.get(form);
    if (found === undefined) {
      found = this.find(form);
      if (this.memo.size > 50_000) this.memo.clear();
      this.memo.set(form, found);
    }
    return found;
  }

  private find(form: string): string {
    // No word guests write is longer than MAX_WORD: a longer one is not looked for (its deletions would cost the most).
    if (this.known.has(form) || form.length > MAX_WORD || !/^[a-z']+$/.test(form)) return form;
    const spelled = ROMAN_URDU_SPELLINGS.get(form);
    if (spelled) return spelled;
    for (const shorter of [form.replace(/(.)\1{2,}/g, '$1$1'), form.replace(/(.)\1+/g, '$1')]) {
      if (this.known.has(shorter)) return shorter;
      const listed = ROMAN_URDU_SPELLINGS.get(shorter);
      if (listed) return listed;
    }
    if (form.length >= 5) {
      for (const d of [form, ...deletionsOf(form)]) {
        const word = this.deletions.get(d);
        if (word && isSlip(form, word)) return word;
      }
    }
    if (form.length >= 4) {
      const word = this.skeletons.get(skeleton(form));
      if (word) return word;
    }
    return form;
  }
}

/**
 * One letter missing, one too many, two swapped, or one vowel for another ("experiance"): the slips of a hand that
 * knows the word. Shared deletions also pair words two edits apart ("order" and "rider" both lose a letter to
 * "rder"), and a consonant for another makes another word ("parking", "packing").
 */
function isSlip(form: string, word: string): boolean {
  if (editDistance(form, word) !== 1) return false;
  if (form.length !== word.length) return true;
  const at = [...form].findIndex((c, i) => c !== word[i]);
  if (form[at + 1] !== undefined && form[at + 1] !== word[at + 1]) return true; // swapped
  return /[aeiou]/.test(form[at]) && /[aeiou]/.test(word[at]);
}

function deletionsOf(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** A Roman Urdu word's consonants: vowels, h and doubled letters are where its spellings differ most. */
const skeleton = (word: string) => word.replace(/[aeiouy'h]/g, '').replace(/(.)\1+/g, '$1');
