import type { EntityManager } from '@mikro-orm/postgresql';
import { Checks } from '../../shared/validation.js';
import { menuOf } from '../menu/index.js';
import { MenuMatcher } from './dish-matcher.rules.js';
import type { TextAnalysis } from './text-analysis.model.js';
import { analyserOf } from './theme-settings.service.js';

const MAX_TEXTS = 100;
const MAX_TEXT_LENGTH = 2000;

/** The texts as a caller may send them: 1 to 100, each at most 2,000 characters (code points, as a guest counts). */
function checkTexts(texts: readonly string[]): void {
  const checks = new Checks();
  if (!texts.length) checks.fail('texts', `must hold at least one text (at most ${MAX_TEXTS})`);
  if (texts.length > MAX_TEXTS) checks.fail('texts', `must hold at most ${MAX_TEXTS} texts, not ${texts.length}: send the rest in another request`);
  texts.forEach((text, i) => {
    const length = [...text].length;
    if (length > MAX_TEXT_LENGTH) checks.fail(`texts[${i}]`, `must be at most ${MAX_TEXT_LENGTH} characters, not ${length}`);
  });
  checks.throwIfAny();
}

/** What reads one text of the business: its theme settings and the dishes of its menu, read now. */
export async function readerOf(em: EntityManager, business: string): Promise<(text: string) => TextAnalysis> {
  const analyser = await analyserOf(em, business);
  const menu = await menuOf(em, business);
  const matcher = new MenuMatcher(menu);
  return (text) => analyser.analyse(text, matcher);
}

/** The analysis of each text, in order, with the business's theme settings and menu. Nothing is stored. */
export async function analyseTexts(em: EntityManager, business: string, texts: readonly string[]): Promise<TextAnalysis[]> {
  checkTexts(texts);
  const read = await readerOf(em, business);
  return texts.map(read);
}
