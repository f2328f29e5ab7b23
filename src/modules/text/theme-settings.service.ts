import type { EntityManager } from '@mikro-orm/postgresql';
import { Checks } from '../../shared/validation.js';
import { THEME_NAME, THEME_NAME_RULE } from '../../shared/themes.js';
import { BUILT_IN_THEMES } from './lexicon/themes.lexicon.js';
import type { ThemeWords } from './theme-settings.entity.js';
import { TextAnalyser } from './text-analyser.rules.js';
import type { ThemeSettings, WordLanguage } from './text-analysis.model.js';
import { queueTextAnalysisSince } from './text-analysis-queue.repo.js';
import { saveThemeSettings, themeSettingsRow } from './text.repo.js';

/** A change of a business's themes re-reads its answers of this many days past, in the background (docs/text-analysis.md). */
const REANALYSE_DAYS = 30;

const WORD_LANGUAGES: readonly WordLanguage[] = ['en', 'ur', 'ur-Latn'];
const MAX_ENTRIES = 100;
const MAX_WORDS = 100;
const MAX_WORD_LENGTH = 60;
const MAX_OFF = 50;

export interface ThemeSettingsView {
  words: ThemeWords[];
  off: string[];
  /** null: never set (the built-in themes alone). */
  updatedAt: Date | null;
}

export interface ThemeSettingsInputValue {
  words?: { theme: string; language: string; words: string[] }[] | null;
  off?: string[] | null;
}

/** The business's settings as stored, or the built-in reading when it has none. */
export async function themeSettingsOf(em: EntityManager, business: string): Promise<ThemeSettingsView> {
  const row = await themeSettingsRow(em, business);
  return row ? { words: row.words, off: row.off, updatedAt: new Date(row.updated_at) } : { words: [], off: [], updatedAt: null };
}

/** The settings an owner sends, checked and tidied (words trimmed, lower case, each once), or a 400 naming each fault. */
function checkThemeSettings(input: ThemeSettingsInputValue, current: ThemeSettingsView): { words: ThemeWords[]; off: string[] } {
  const checks = new Checks();
  const words = input.words ?? current.words;
  const off = input.off ?? current.off;
  if (words.length > MAX_ENTRIES) checks.fail('words', `at most ${MAX_ENTRIES} entries (a theme in a language each), not ${words.length}`);
  const seen = new Set<string>();
  const tidy: ThemeWords[] = [];
  words.forEach((entry, i) => {
    const at = `words[${i}]`;
    const theme = typeof entry.theme === 'string' ? entry.theme.trim().toLowerCase() : '';
    if (!THEME_NAME.test(theme)) checks.fail(`${at}.theme`, `must be ${THEME_NAME_RULE} (such as \`parking\`)`);
    if (!(WORD_LANGUAGES as readonly string[]).includes(entry.language))
      checks.fail(`${at}.language`, `must be one of ${WORD_LANGUAGES.join(', ')}, not '${entry.language}'`);
    const key = `${theme} ${entry.language}`;
    if (seen.has(key)) checks.fail(at, `the theme '${theme}' in '${entry.language}' is given twice: put its words in one entry`);
    seen.add(key);
    const list = [...new Set((entry.words ?? []).map((w) => (typeof w === 'string' ? w.trim().toLowerCase() : '')))];
    if (!list.length) checks.fail(`${at}.words`, 'must hold at least one word');
    if (list.length > MAX_WORDS) checks.fail(`${at}.words`, `must hold at most ${MAX_WORDS} words, not ${list.length}`);
    list.forEach((w, j) => {
      if (!w) checks.fail(`${at}.words[${j}]`, 'must not be empty');
      else if ([...w].length > MAX_WORD_LENGTH) checks.fail(`${at}.words[${j}]`, `must be at most ${MAX_WORD_LENGTH} characters`);
    });
    tidy.push({ theme, language: entry.language as WordLanguage, words: list });
  });
  const known = new Set<string>([...BUILT_IN_THEMES, ...tidy.map((t) => t.theme)]);
  if (off.length > MAX_OFF) checks.fail('off', `at most ${MAX_OFF} themes`);
  const offTidy = [...new Set(off.map((t) => (typeof t === 'string' ? t.trim().toLowerCase() : '')))];
  offTidy.forEach((theme, i) => {
    if (!known.has(theme)) checks.fail(`off[${i}]`, `'${theme}' is neither a built-in theme (${BUILT_IN_THEMES.join(', ')}) nor one of the business's own`);
  });
  checks.throwIfAny();
  return { words: tidy, off: offTidy };
}

/**
 * Stores the business's theme settings (fields left out keep their value) and queues the re-analysis of its answers
 * of the last REANALYSE_DAYS days, in one transaction. Answers the settings and how many submissions were queued.
 */
export function updateThemeSettings(em: EntityManager, business: string, input: ThemeSettingsInputValue): Promise<ThemeSettingsView & { reanalysing: number }> {
  return em.transactional(async (tx) => {
    const settings = checkThemeSettings(input, await themeSettingsOf(tx, business));
    const row = await saveThemeSettings(tx, business, settings);
    const reanalysing = await queueTextAnalysisSince(tx, business, new Date(Date.now() - REANALYSE_DAYS * 86_400_000));
    return { words: row.words, off: row.off, updatedAt: new Date(row.updated_at), reanalysing };
  });
}

/**
 * Analysers built for businesses' settings, by business and the settings themselves (building one reads every
 * lexicon again): the settings are read on each use, so a change is read at once, in every process.
 */
const analysers = new Map<string, { key: string; analyser: TextAnalyser }>();
const MAX_ANALYSERS = 200;

/** The analyser of the business's settings (the built-in one when it has none), read now. */
export async function analyserOf(em: EntityManager, business: string): Promise<TextAnalyser> {
  const row = await themeSettingsRow(em, business);
  if (!row) return TextAnalyser.builtIn();
  const key = JSON.stringify([row.words, row.off]);
  const kept = analysers.get(business);
  if (kept?.key === key) return kept.analyser;
  const settings: ThemeSettings = { words: row.words, off: row.off };
  const analyser = TextAnalyser.for(settings);
  analysers.delete(business);
  if (analysers.size >= MAX_ANALYSERS) analysers.delete(analysers.keys().next().value!);
  analysers.set(business, { key, analyser });
  return analyser;
}

/** The themes a business's analysis may report: the built-in ones and the business's own (switched off or not). */
export async function knownThemes(em: EntityManager, business: string): Promise<Set<string>> {
  const { words } = await themeSettingsOf(em, business);
  return new Set<string>([...BUILT_IN_THEMES, ...words.map((w) => w.theme)]);
}
