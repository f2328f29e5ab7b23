import {
  PLAIN_WORDS,
  CLAUSE_ENDING_VERBS,
  CONCESSIVES,
  CONTRASTS,
  CONTRASTS_AFTER_VERB,
  ENGLISH_MARKERS,
  ENGLISH_NEGATORS,
  FILLERS,
  INTENSIFIERS,
  JOINERS,
  ROMAN_URDU_MARKERS,
  URDU_NEGATORS,
} from './lexicon/grammar.lexicon.js';
import { ENGLISH_PHRASES, ENGLISH_SENTIMENT, ROMAN_URDU_PHRASES, ROMAN_URDU_SENTIMENT, URDU_PHRASES, URDU_SENTIMENT } from './lexicon/sentiment.lexicon.js';
import { ABSORBS, BUILT_IN_THEMES, DISH_WORDS, THEME_WORDS } from './lexicon/themes.lexicon.js';
import { ROMAN_URDU_SPELLINGS } from './lexicon/roman-urdu.lexicon.js';
import type { MenuMatcher } from './dish-matcher.rules.js';
import { Normaliser } from './text-normalise.rules.js';
import { tokenise, type Token } from './text-tokens.rules.js';
import type { DishFinding, SentimentLabel, TextAnalysis, TextLanguage, ThemeFinding, ThemeSettings, WordLanguage } from './text-analysis.model.js';

/** Words and phrases to values, matched longest first at a position. */
class PhraseIndex<T> {
  private readonly byFirst = new Map<string, { keys: string[]; value: T }[]>();
  add(keys: string[], value: T, merge?: (a: T, b: T) => T) {
    if (!keys.length) return;
    const list = this.byFirst.get(keys[0]) ?? [];
    const same = list.find((e) => e.keys.join(' ') === keys.join(' '));
    if (same) same.value = merge ? merge(same.value, value) : value;
    else {
      list.push({ keys, value });
      list.sort((a, b) => b.keys.length - a.keys.length);
      this.byFirst.set(keys[0], list);
    }
  }
  match(keys: readonly string[], at: number, end: number): { length: number; value: T } | undefined {
    for (const entry of this.byFirst.get(keys[at]) ?? []) {
      if (at + entry.keys.length > end) continue;
      if (entry.keys.every((k, j) => keys[at + j] === k)) return { length: entry.keys.length, value: entry.value };
    }
    return undefined;
  }
  *words(): Iterable<string> {
    for (const list of this.byFirst.values()) for (const e of list) yield* e.keys;
  }
}

interface ThemeTerm {
  theme: string;
  /** Names the theme only when something is said of it. */
  weak: boolean;
}

interface Clause {
  start: number;
  end: number;
  weight: number;
}

interface Span {
  start: number;
  end: number;
}

interface Judgement extends Span {
  value: number;
  /** The word that negates it, shown among its theme's words ("not", "bad"). */
  negator?: number;
}

interface ThemeHit extends Span {
  theme: string;
  weak: boolean;
  clause: number;
}

const formsOf = (text: string) => tokenise(text).map((t) => t.form);

// Weights: a clause after "but" says what the guest meant; one after "although" concedes.
const CONTRAST_WEIGHT = 2.5;
const CONCESSIVE_WEIGHT = 0.5;
// How far a negator or an intensifier reaches, in words.
const NEGATION_REACH = 3;
const INTENSIFIER_REACH = 2;
// score = S / sqrt(S² + SOFTNESS): one plain "good" (2) is 0.58, "very good" 0.73.
const SOFTNESS = 8;
const NEUTRAL_BAND = 0.1;
const ORPHAN_NEGATION = -1;
// A theme's or dish's words must say more than "okay" (0.5) to make it positive or negative.
const THEME_BAND = 0.6;

const labelOf = (score: number, band = NEUTRAL_BAND): SentimentLabel => (score >= band ? 'positive' : score <= -band ? 'negative' : 'neutral');

/**
 * Reads a comment offline: its language, a lexicon score per clause (negation, intensifiers, contrast clauses),
 * themes with their own sentiment and words, and the menu's dishes. One instance per theme configuration; the
 * built-in one is made once (TextAnalyser.builtIn).
 */
export class TextAnalyser {
  private static shared?: TextAnalyser;
  private readonly sentiment = new PhraseIndex<number>();
  private readonly themes = new PhraseIndex<ThemeTerm[]>();
  private readonly normaliser: Normaliser;
  private readonly themeNames: string[];

  static builtIn(): TextAnalyser {
    return (TextAnalyser.shared ??= new TextAnalyser());
  }

  /** The built-in analyser, or one that also reads a business's own words and themes. */
  static for(settings?: ThemeSettings | null): TextAnalyser {
    return settings && (settings.words?.length || settings.off?.length) ? new TextAnalyser(settings) : TextAnalyser.builtIn();
  }

  private constructor(settings: ThemeSettings = {}) {
    for (const lexicon of [ENGLISH_SENTIMENT, ENGLISH_PHRASES, URDU_SENTIMENT, URDU_PHRASES, ROMAN_URDU_SENTIMENT, ROMAN_URDU_PHRASES]) {
      for (const [phrase, value] of Object.entries(lexicon)) this.sentiment.add(formsOf(phrase), value);
    }
    const off = new Set(settings.off ?? []);
    const addTheme = (theme: string, word: string, normalise: (w: string) => string) => {
      const weak = word.startsWith('~');
      const keys = formsOf(weak ? word.slice(1) : word).map(normalise);
      this.themes.add(keys, [{ theme, weak }], (a, b) => [...a.filter((t) => t.theme !== theme), ...b]);
    };
    const same = (w: string) => w;
    for (const theme of BUILT_IN_THEMES) {
      if (off.has(theme)) continue;
      for (const words of Object.values(THEME_WORDS[theme])) for (const word of words) addTheme(theme, word, same);
    }
    if (!off.has('food')) for (const words of Object.values(DISH_WORDS)) for (const word of words) addTheme('food', `~${word}`, same);

    const known = new Set<string>([
      ...this.sentiment.words(),
      ...this.themes.words(),
      ...Object.keys(ENGLISH_MARKERS),
      ...Object.keys(ROMAN_URDU_MARKERS),
      ...Object.keys(INTENSIFIERS),
      ...ENGLISH_NEGATORS,
      ...URDU_NEGATORS,
      ...PLAIN_WORDS,
    ]);
    const romanUrdu = [
      ...Object.keys(ROMAN_URDU_SENTIMENT),
      ...Object.keys(ROMAN_URDU_MARKERS),
      ...Object.values(THEME_WORDS).flatMap((w) => w['ur-Latn']),
    ].filter((w) => !w.startsWith('~'));
    const own = (settings.words ?? []).filter((w) => !off.has(w.theme));
    for (const { words } of own) for (const word of words) for (const form of formsOf(word)) known.add(ROMAN_URDU_SPELLINGS.get(form) ?? form);
    this.normaliser = new Normaliser(known, romanUrdu);
    // A business's words after the normaliser exists, so "parkng" and "parking" are one word like any other.
    for (const { theme, words } of own) for (const word of words) addTheme(theme, word, (w) => this.normaliser.normalise(w));
    this.themeNames = [...BUILT_IN_THEMES.filter((t) => !off.has(t)), ...own.map((w) => w.theme)];
  }

  /** The themes this analyser looks for: the built-in ones still on, then the business's own. */
  get themeList(): readonly string[] {
    return [...new Set(this.themeNames)];
  }

  analyse(text: string, menu?: MenuMatcher): TextAnalysis {
    const tokens = tokenise(text);
    const keys = tokens.map((t) => (t.urdu ? t.form : this.normaliser.normalise(t.form)));
    const clauses = clausesOf(tokens, keys);

    const judgements: Judgement[][] = [];
    const hits: ThemeHit[][] = [];
    for (const [c, clause] of clauses.entries()) {
      judgements.push(this.judge(keys, clause));
      hits.push(this.themesIn(keys, clause, c));
    }
    for (const [owner, absorbed] of Object.entries(ABSORBS)) {
      if (!hits.some((list) => list.some((h) => h.theme === owner))) continue;
      for (const list of hits) for (const hit of list) if ((absorbed as string[]).includes(hit.theme)) hit.theme = owner;
    }
    const dishes = menu?.find(tokens) ?? [];

    let total = 0;
    const clauseSums = judgements.map((list) => list.reduce((s, j) => s + j.value, 0));
    clauses.forEach((clause, c) => (total += clause.weight * clauseSums[c]));
    const score = Math.round((total / Math.sqrt(total * total + SOFTNESS)) * 1000) / 1000;
    const label = labelOf(score);

    // Each judging word goes to the theme (and dish) it is nearest within its clause; a word that names a theme
    // itself ("rude", "mehnga") judges that one.
    const themeSums = new Map<string, { sum: number; judged: number; strong: boolean; words: Map<number, string>; first: number; fallback: number }>();
    const themeOf = (name: string, first: number) => {
      let entry = themeSums.get(name);
      if (!entry) themeSums.set(name, (entry = { sum: 0, judged: 0, strong: false, words: new Map(), first, fallback: 0 }));
      return entry;
    };
    const dishSums = new Map<string, { name: string; sum: number; first: number }>();
    for (const [c, clause] of clauses.entries()) {
      for (const hit of hits[c]) {
        const entry = themeOf(hit.theme, hit.start);
        if (!hit.weak) {
          entry.strong = true;
          for (let i = hit.start; i < hit.end; i++) entry.words.set(i, tokens[i].form);
        }
        entry.fallback += clauseSums[c];
      }
      const clauseDishes = dishes.filter((d) => d.start >= clause.start && d.start < clause.end);
      for (const dish of clauseDishes) {
        const entry = dishSums.get(dish.item.id) ?? { name: dish.item.name, sum: 0, first: dish.start };
        dishSums.set(dish.item.id, entry);
      }
      for (const judgement of judgements[c]) {
        const value = judgement.value * clause.weight;
        for (const hit of nearest(hits[c], judgement)) {
          const entry = themeOf(hit.theme, hit.start);
          entry.sum += value;
          entry.judged++;
          for (let i = hit.start; i < hit.end; i++) entry.words.set(i, tokens[i].form);
          for (let i = judgement.start; i < judgement.end; i++) entry.words.set(i, tokens[i].form);
          if (judgement.negator !== undefined) entry.words.set(judgement.negator, tokens[judgement.negator].form);
        }
        for (const dish of nearest(clauseDishes, judgement)) dishSums.get(dish.item.id)!.sum += value;
      }
      // A dish or other weak word of a theme judged in the clause is among the theme's words ("biryani", "delicious").
      for (const hit of hits[c]) {
        const entry = themeSums.get(hit.theme)!;
        if (hit.weak && entry.judged) for (let i = hit.start; i < hit.end; i++) entry.words.set(i, tokens[i].form);
      }
    }

    const themes: (ThemeFinding & { first: number })[] = [];
    for (const [theme, entry] of themeSums) {
      if (!entry.strong && !(entry.judged && entry.sum)) continue;
      const sentiment = entry.judged ? labelOf(entry.sum, THEME_BAND) : entry.fallback ? labelOf(entry.fallback, THEME_BAND) : label;
      themes.push({
        theme,
        sentiment,
        words: [...entry.words.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([, w]) => w)
          .filter((w, i, all) => all.indexOf(w) === i),
        first: entry.first,
      });
    }
    themes.sort((a, b) => a.first - b.first);
    const dishList: DishFinding[] = [...dishSums.entries()]
      .sort((a, b) => a[1].first - b[1].first)
      .map(([id, d]) => ({ name: d.name, menuItem: id, sentiment: labelOf(d.sum, THEME_BAND) }));

    return {
      language: languageOf(tokens, keys, clauses),
      sentiment: { score, label },
      themes: themes.map(({ first: _first, ...t }) => t),
      dishes: dishList,
    };
  }

  /** The clause's judging words, each with its intensifier and negation applied. */
  private judge(keys: readonly string[], clause: Clause): Judgement[] {
    const out: Judgement[] = [];
    const used = new Set<number>();
    for (let i = clause.start; i < clause.end; i++) {
      const found = this.sentiment.match(keys, i, clause.end);
      if (!found) continue;
      const span = { start: i, end: i + found.length };
      for (let j = span.start; j < span.end; j++) used.add(j);
      let value = found.value;
      const intensity = modifierBefore(keys, clause, span.start, (k) => INTENSIFIERS[k]);
      if (intensity) value *= intensity;
      const negator = negatorOf(keys, clause, span);
      if (negator >= 0) {
        value = -value * 0.8;
        used.add(negator);
      }
      out.push({ ...span, value, ...(negator >= 0 ? { negator } : {}) });
      i = span.end - 1;
    }
    // A negation that negates no judging word is a complaint that something was not done ("didn't answer calls",
    // "pankha nahi chal raha tha").
    for (let i = clause.start; i < clause.end; i++) {
      if (!used.has(i) && (isEnglishNegator(keys[i]) || URDU_NEGATORS.has(keys[i]))) out.push({ start: i, end: i + 1, value: ORPHAN_NEGATION });
    }
    return out;
  }

  private themesIn(keys: readonly string[], clause: Clause, c: number): ThemeHit[] {
    const out: ThemeHit[] = [];
    for (let i = clause.start; i < clause.end; i++) {
      const found = this.themes.match(keys, i, clause.end);
      if (!found) continue;
      for (const term of found.value) out.push({ start: i, end: i + found.length, theme: term.theme, weak: term.weak, clause: c });
      i += found.length - 1;
    }
    return out;
  }
}

/** The spans a judgement speaks of: those it overlaps, else the nearest ones in its clause. */
function nearest<T extends Span>(spans: readonly T[], judgement: Span): T[] {
  if (!spans.length) return [];
  const overlapping = spans.filter((s) => s.start < judgement.end && judgement.start < s.end);
  if (overlapping.length) return overlapping;
  const gap = (s: Span) => (s.end <= judgement.start ? judgement.start - s.end : s.start - judgement.end);
  const least = Math.min(...spans.map(gap));
  return spans.filter((s) => gap(s) === least);
}

function modifierBefore(keys: readonly string[], clause: Clause, at: number, value: (key: string) => number | undefined): number | undefined {
  let seen = 0;
  for (let i = at - 1; i >= clause.start && seen < INTENSIFIER_REACH; i--) {
    const v = value(keys[i]);
    if (v !== undefined) return v;
    if (!FILLERS.has(keys[i])) seen++;
  }
  return undefined;
}

const isEnglishNegator = (key: string) => ENGLISH_NEGATORS.has(key) || key.endsWith("n't");

/**
 * The negator of a judging word, or -1. English negators come before what they negate ("not good"); Urdu ones after
 * ("acha nahi"), sometimes before.
 */
function negatorOf(keys: readonly string[], clause: Clause, span: Span): number {
  for (let i = span.start - 1, n = 0; i >= clause.start && n < NEGATION_REACH; i--, n++) {
    if (isEnglishNegator(keys[i])) return i;
    if (URDU_NEGATORS.has(keys[i]) && n < 2) return i;
  }
  for (let i = span.end, n = 0; i < clause.end && n < NEGATION_REACH; i++) {
    if (URDU_NEGATORS.has(keys[i])) return i;
    if (!FILLERS.has(keys[i])) n++;
  }
  return -1;
}

/** Clauses: broken at punctuation and at connectors; a connector's own word belongs to no clause. */
function clausesOf(tokens: readonly Token[], keys: readonly string[]): Clause[] {
  const clauses: Clause[] = [];
  let current: Clause = { start: 0, end: 0, weight: 1 };
  const close = (next: number, weight: number) => {
    if (current.end > current.start) clauses.push(current);
    current = { start: next, end: next, weight };
  };
  for (let i = 0; i < tokens.length; i++) {
    const key = keys[i];
    if (tokens[i].afterBreak && i > current.start) close(i, 1);
    const contrast = CONTRASTS.has(key) || (CONTRASTS_AFTER_VERB.has(key) && i > 0 && CLAUSE_ENDING_VERBS.has(keys[i - 1]));
    if (contrast || CONCESSIVES.has(key) || JOINERS.has(key)) {
      const weight = contrast ? CONTRAST_WEIGHT : CONCESSIVES.has(key) ? CONCESSIVE_WEIGHT : current.weight === CONCESSIVE_WEIGHT ? 1 : current.weight;
      close(i + 1, weight);
      continue;
    }
    current.end = i + 1;
  }
  close(tokens.length, 1);
  return clauses;
}

/**
 * Each clause's language from its words (Urdu script; Roman Urdu's and English's grammar words, verbs weighing
 * most; lexicon words a little); the comment is `mixed` when two languages each hold a real share of it.
 */
function languageOf(tokens: readonly Token[], keys: readonly string[], clauses: readonly Clause[]): TextLanguage {
  const mass: Record<WordLanguage, number> = { en: 0, ur: 0, 'ur-Latn': 0 };
  let latin = 0;
  let script = { urdu: 0, latin: 0 };
  for (const clause of clauses) {
    const here: Record<WordLanguage, number> = { en: 0, ur: 0, 'ur-Latn': 0 };
    for (let i = clause.start; i < clause.end; i++) {
      if (tokens[i].urdu) {
        here.ur += 1;
        continue;
      }
      if (/^\d+$/.test(keys[i])) continue;
      latin++;
      here.en += ENGLISH_MARKERS[keys[i]] ?? (isEnglishNegator(keys[i]) ? 1 : keys[i] in ENGLISH_SENTIMENT ? 0.5 : 0);
      here['ur-Latn'] += ROMAN_URDU_MARKERS[keys[i]] ?? (keys[i] in ROMAN_URDU_SENTIMENT || ROMAN_URDU_SPELLINGS.has(tokens[i].form) ? 1 : 0);
    }
    script = { urdu: script.urdu + here.ur, latin: script.latin + here.en + here['ur-Latn'] };
    const best = (Object.keys(here) as WordLanguage[]).reduce((a, b) => (here[b] > here[a] ? b : a));
    if (here[best] > 0) mass[best] += here[best];
  }
  const ranked = (Object.keys(mass) as WordLanguage[]).sort((a, b) => mass[b] - mass[a]);
  const sum = mass.en + mass.ur + mass['ur-Latn'];
  if (!sum) return latin ? 'en' : tokens.length ? 'ur' : 'en';
  // Urdu script beside a Latin clause is two languages, however short the Urdu ("بریانی was the best").
  if (script.urdu >= 1 && script.latin >= 2) return 'mixed';
  const second = mass[ranked[1]];
  if (second >= 1 && second / sum >= 0.2) return 'mixed';
  return ranked[0];
}
