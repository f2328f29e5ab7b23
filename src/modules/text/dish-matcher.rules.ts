import { foldText } from '../../shared/keywords.js';
import type { Token } from './text-tokens.rules.js';

export interface MenuEntry {
  id: string;
  name: string;
}

/** A dish named in a text: the menu item, and the words [start, end) that name it. */
export interface DishHit {
  item: MenuEntry;
  start: number;
  end: number;
}

// Urdu letters as the Latin letters a Roman spelling would use: short vowels are unwritten in Urdu, so the match
// is on consonants (dishSkeleton) and the vowels only choose between dishes with the same ones.
const URDU_LATIN: Record<string, string> = {
  ا: 'a',
  آ: 'a',
  ب: 'b',
  پ: 'p',
  ت: 't',
  ٹ: 't',
  ث: 's',
  ج: 'j',
  چ: 'ch',
  ح: 'h',
  خ: 'kh',
  د: 'd',
  ڈ: 'd',
  ذ: 'z',
  ر: 'r',
  ڑ: 'r',
  ز: 'z',
  ژ: 'zh',
  س: 's',
  ش: 'sh',
  ص: 's',
  ض: 'z',
  ط: 't',
  ظ: 'z',
  ع: 'a',
  غ: 'gh',
  ف: 'f',
  ق: 'q',
  ک: 'k',
  گ: 'g',
  ل: 'l',
  م: 'm',
  ن: 'n',
  ں: 'n',
  و: 'o',
  ہ: 'h',
  ھ: 'h',
  ی: 'i',
  ے: 'e',
  ئ: '',
  ء: '',
};

const latinOf = (form: string) =>
  [...form]
    .map((c) => URDU_LATIN[c] ?? c)
    .join('')
    .replace(/h$/, 'a');

/** The consonants of a dish's name however it is spelled: "biryani", "biriyani" and "بریانی" are all "brn". */
function dishSkeleton(latin: string): string {
  return latin
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/ch/g, 'C')
    .replace(/c/g, 'k')
    .replace(/q/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/[aeiouywvh']/g, '')
    .replace(/(.)\1+/g, '$1');
}

/** Damerau-Levenshtein distance (optimal string alignment), for choosing between dishes of the same consonants. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

interface Word {
  latin: string;
  skeleton: string;
}

interface Candidate {
  item: MenuEntry;
  words: Word[];
}

const wordOf = (form: string, urdu: boolean): Word => {
  const latin = urdu ? latinOf(form) : form.replace(/c(?!h)/g, 'k').replace(/q/g, 'k');
  return { latin, skeleton: dishSkeleton(latin) };
};

/** One word of a text names one word of a dish's name: the same consonants, and a spelling close enough. */
function sameWordOnce(text: Word, token: Token, name: Word): number | undefined {
  if (text.skeleton !== name.skeleton || !name.skeleton) return undefined;
  const distance = editDistance(text.latin, name.latin);
  // Few consonants say little: "kr" is karahi, care and core. Latin spellings must be close; Urdu ones too when
  // a single consonant is all they share (نان is naan, نہیں is not).
  if (token.urdu) return name.skeleton.length >= 2 || distance <= 1 ? distance : undefined;
  return distance <= Math.max(1, Math.ceil(name.latin.length / 3)) ? distance : undefined;
}

/**
 * The business's menu, ready to find its dishes in texts: a dish's whole name ("chicken karahi"), or its last word
 * alone ("the karahi was cold") when only one dish ends in it. Among dishes that both fit, the closest spelling wins.
 */
export class MenuMatcher {
  private readonly candidates: Candidate[];
  /** Dishes by the consonants of all their words ("chkn krh"): a text's words can only name a dish of their shape. */
  private readonly byShape = new Map<string, Candidate[]>();
  /** The numbers of words dish names have, longest first (a longer name that fits wins). */
  private readonly lengths: number[];
  private readonly byLast = new Map<string, Candidate[]>();

  constructor(items: readonly MenuEntry[]) {
    this.candidates = items
      .map((item) => ({ item, words: (foldText(item.name).match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => wordOf(w, /[\u0600-\u06ff]/u.test(w))) }))
      .filter((c) => c.words.length && c.words.some((w) => w.skeleton));
    for (const c of this.candidates) {
      push(this.byShape, shapeOf(c.words), c);
      if (c.words.length > 1) push(this.byLast, c.words[c.words.length - 1].skeleton, c);
    }
    this.lengths = [...new Set(this.candidates.map((c) => c.words.length))].sort((a, b) => b - a);
  }

  get size() {
    return this.candidates.length;
  }

  find(tokens: readonly Token[]): DishHit[] {
    if (!this.candidates.length) return [];
    const hits: DishHit[] = [];
    const words = tokens.map((t) => wordOf(t.form, t.urdu));
    // A word of the text against a word of a name, once each: many dishes share words ("chicken …"), texts repeat them.
    const compared = new Map<string, number | undefined>();
    const sameWord = (at: number, name: Word) => {
      const key = `${tokens[at].urdu ? 'u' : 'l'}${words[at].latin}\u0000${name.latin}`;
      if (!compared.has(key)) compared.set(key, sameWordOnce(words[at], tokens[at], name));
      return compared.get(key);
    };
    /** How far the text's words from `at` are from the dish's name, word by word; undefined when one is not it. */
    const spelledAs = (at: number, c: Candidate): number | undefined => {
      let total = 0;
      for (let j = 0; j < c.words.length; j++) {
        const d = sameWord(at + j, c.words[j]);
        if (d === undefined) return undefined;
        total += d;
      }
      return total;
    };
    for (let i = 0; i < tokens.length; i++) {
      let best: { c: Candidate; distance: number; end: number } | undefined;
      // The longest names that fit first; among names of that length and shape, the closest spelling.
      for (const length of this.lengths) {
        if (best || i + length > tokens.length) continue;
        for (const c of this.byShape.get(shapeOf(words.slice(i, i + length))) ?? []) {
          const distance = spelledAs(i, c);
          if (distance !== undefined && (!best || distance < best.distance)) best = { c, distance, end: i + length };
        }
      }
      if (!best) {
        const enders = (this.byLast.get(words[i].skeleton) ?? []).filter((c) => sameWord(i, c.words[c.words.length - 1]) !== undefined);
        if (enders.length === 1) best = { c: enders[0], distance: 0, end: i + 1 };
      }
      if (best) {
        hits.push({ item: best.c.item, start: i, end: best.end });
        i = best.end - 1;
      }
    }
    return hits;
  }
}

/** The consonants of each word of a name or of a run of a text's words. */
const shapeOf = (words: readonly Word[]) => words.map((w) => w.skeleton).join(' ');

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
