import type { EntityManager } from '@mikro-orm/postgresql';
import { Checks } from '../../shared/validation.js';
import { menuOf } from '../menu/menu-item.service.js';
import { MenuMatcher } from './dish.matcher.js';
import { TextAnalyser } from './text.analyser.js';
import type { TextAnalysis, ThemeSettings } from './text-analysis.types.js';

export const MAX_TEXTS = 100;
export const MAX_TEXT_LENGTH = 2000;

/** The texts as a caller may send them: 1 to 100, each at most 2,000 characters (code points, as a guest counts). */
export function checkTexts(texts: readonly string[]): void {
  const checks = new Checks();
  if (!texts.length) checks.fail('texts', `must hold at least one text (at most ${MAX_TEXTS})`);
  if (texts.length > MAX_TEXTS) checks.fail('texts', `must hold at most ${MAX_TEXTS} texts, not ${texts.length}: send the rest in another request`);
  texts.forEach((text, i) => {
    const length = [...text].length;
    if (length > MAX_TEXT_LENGTH) checks.fail(`texts[${i}]`, `must be at most ${MAX_TEXT_LENGTH} characters, not ${length}`);
  });
  checks.throwIfAny();
}

/**
 * The analysis of each text, in order, with the dishes of the business's menu. Nothing is stored. `settings`: the
 * business's own theme words and switched-off themes, once they are stored (issue 52, item 3).
 */
export async function analyseTexts(em: EntityManager, business: string, texts: readonly string[], settings?: ThemeSettings): Promise<TextAnalysis[]> {
  checkTexts(texts);
  const menu = new MenuMatcher(await menuOf(em, business));
  const analyser = TextAnalyser.for(settings);
  return texts.map((text) => analyser.analyse(text, menu));
}
