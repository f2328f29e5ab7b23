// The measure of issue 52's analysis against the team's labelled comments (test/fixtures/text), beside a baseline:
// the `sentiment` package's AFINN score with plain keyword themes. Used by bench/text-eval.js and test/text/.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { wordsOf } from '../../src/shared/keywords.js';
import { MenuMatcher } from '../../src/modules/text/dish-matcher.rules.js';
import { TextAnalyser } from '../../src/modules/text/text-analyser.rules.js';
import { BUILT_IN_THEMES, DISH_WORDS, THEME_WORDS } from '../../src/modules/text/lexicon/themes.lexicon.js';
import type { SentimentLabel, TextLanguage } from '../../src/modules/text/text-analysis.model.js';

export interface LabelledComment {
  id: number;
  text: string;
  language: TextLanguage;
  /** null: the comment praises and blames alike (left out of sentiment accuracy). */
  sentiment: SentimentLabel | null;
  /** Theme → polarity ("mixed" counts for the theme but not its polarity). */
  themes: Record<string, SentimentLabel | 'mixed'>;
}

export interface Prediction {
  language: TextLanguage;
  sentiment: SentimentLabel;
  themes: Record<string, SentimentLabel>;
}

export interface Figures {
  comments: number;
  language: number;
  sentiment: number;
  sentimentByLanguage: Record<string, number>;
  themePrecision: number;
  themeRecall: number;
  themeF1: number;
  themePolarity: number;
}

export const FIXTURE = new URL('../../test/fixtures/text/comments.json', import.meta.url);
export const loadComments = (): LabelledComment[] => JSON.parse(readFileSync(FIXTURE, 'utf8'));
/** Every 4th comment is held out: not looked at while the lexicons were tuned. */
export const isHeldOut = (c: LabelledComment) => c.id % 4 === 0;

export function ours(text: string): Prediction {
  const analysis = TextAnalyser.builtIn().analyse(text);
  return { language: analysis.language, sentiment: analysis.sentiment.label, themes: Object.fromEntries(analysis.themes.map((t) => [t.theme, t.sentiment])) };
}

const require = createRequire(import.meta.url);
const Sentiment = require('sentiment') as new () => { analyze(text: string): { score: number } };
let afinn: { analyze(text: string): { score: number } } | undefined;
let keywordThemes: [string, Set<string>][] | undefined;

/** The baseline: script for language, AFINN for sentiment, any theme word (as written in the lexicon) for a theme. */
export function baseline(text: string): Prediction {
  afinn ??= new Sentiment();
  keywordThemes ??= BUILT_IN_THEMES.map((theme) => {
    const words = Object.values(THEME_WORDS[theme])
      .flat()
      .concat(theme === 'food' ? Object.values(DISH_WORDS).flat() : []);
    return [theme, new Set(words.map((w) => w.replace(/^~/, '')))];
  });
  const score = afinn.analyze(text).score;
  const sentiment: SentimentLabel = score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
  const words = new Set(wordsOf(text));
  const themes: Record<string, SentimentLabel> = {};
  for (const [theme, keywords] of keywordThemes) if ([...keywords].some((k) => words.has(k))) themes[theme] = sentiment;
  return { language: /[\u0600-\u06ff]/.test(text) ? 'ur' : 'en', sentiment, themes };
}

const ratio = (a: number, b: number) => (b ? a / b : 0);

export function figures(comments: readonly LabelledComment[], predict: (text: string) => Prediction): Figures {
  let language = 0;
  const sentiment = { right: 0, all: 0 };
  const byLanguage: Record<string, { right: number; all: number }> = {};
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const polarity = { right: 0, all: 0 };
  for (const c of comments) {
    const p = predict(c.text);
    if (p.language === c.language) language++;
    if (c.sentiment) {
      const right = p.sentiment === c.sentiment ? 1 : 0;
      sentiment.right += right;
      sentiment.all++;
      const l = (byLanguage[c.language] ??= { right: 0, all: 0 });
      l.right += right;
      l.all++;
    }
    for (const theme of Object.keys(p.themes)) if (!(theme in c.themes)) fp++;
    for (const [theme, label] of Object.entries(c.themes)) {
      if (!(theme in p.themes)) {
        fn++;
        continue;
      }
      tp++;
      if (label !== 'mixed') {
        polarity.all++;
        if (p.themes[theme] === label) polarity.right++;
      }
    }
  }
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  return {
    comments: comments.length,
    language: ratio(language, comments.length),
    sentiment: ratio(sentiment.right, sentiment.all),
    sentimentByLanguage: Object.fromEntries(
      Object.entries(byLanguage)
        .sort()
        .map(([l, s]) => [l, ratio(s.right, s.all)]),
    ),
    themePrecision: precision,
    themeRecall: recall,
    themeF1: ratio(2 * precision * recall, precision + recall),
    themePolarity: ratio(polarity.right, polarity.all),
  };
}

/** A menu of the dishes the fixture names, so the timing includes matching them. */
export const BENCH_MENU = new MenuMatcher(
  [
    'Chicken Karahi',
    'Mutton Karahi',
    'Chicken Biryani',
    'Beef Nihari',
    'Haleem',
    'Naan',
    'Seekh Kabab',
    'Chicken Tikka',
    'Mutton Pulao',
    'Daal Mash',
    'Raita',
    'Zinger Burger',
    'Pizza',
    'Fries',
    'Club Sandwich',
    'Kheer',
    'Chai',
    'Paratha',
    'Samosa',
    'Gulab Jamun',
    'Paneer Tikka',
    'Cold Coffee',
  ].map((name, i) => ({ id: `mi_${i}`, name })),
);

/**
 * The median CPU time of one analysis of a 300-character comment, in ms: comments of the fixture joined to 300
 * characters, each analysed `rounds` times after a warm-up (a service analyses all day: V8 has optimised the path).
 */
export function medianCpuMs(comments: readonly LabelledComment[], rounds = 50): number {
  const texts: string[] = [];
  for (let i = 0; i < comments.length; i++) {
    let text = '';
    for (let j = i; text.length < 300; j = (j + 1) % comments.length) text += `${comments[j].text} `;
    texts.push(text.slice(0, 300));
  }
  const analyser = TextAnalyser.builtIn();
  for (const text of texts) analyser.analyse(text, BENCH_MENU);
  const times: number[] = [];
  for (const text of texts) {
    const start = process.cpuUsage();
    for (let r = 0; r < rounds; r++) analyser.analyse(text, BENCH_MENU);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / rounds / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
