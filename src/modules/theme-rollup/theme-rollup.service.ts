import type { EntityManager } from '@mikro-orm/postgresql';
import { applyThemes, clearThemes, lockSubmissions, shareAnalyticsLock, themeRollupRows, type ThemeScope } from './theme-rollup.repo.js';

export type { ThemeScope } from './theme-rollup.repo.js';

/**
 * The one place the theme rollups' rule lives (issue 52, item 4; docs/analytics.md "Themes"): whatever changes what a
 * submission's stored analyses contribute (its analyses replaced, its location, survey or day changed, the submission
 * deleted) calls one of these in the transaction of the change, so the rollups equal a count of answer_analysis at
 * every commit. Statements the service sends, never a trigger (issue 51: no cross-table work in triggers).
 */

/**
 * Around a replacement of one submission's analyses: its contributions taken away, `replace` run, the new ones
 * added. The submission is locked first, so an analysis, a move or a deletion of it goes one after the other; answers
 * null (writing nothing) when it is gone.
 */
export async function replacingThemes<T>(tx: EntityManager, business: string, submission: string, replace: () => Promise<T>): Promise<T | null> {
  await shareAnalyticsLock(tx, business);
  if (!(await lockSubmissions(tx, business, { submission })).length) return null;
  await applyThemes(tx, business, { submission }, -1);
  const replaced = await replace();
  await applyThemes(tx, business, { submission }, 1);
  return replaced;
}

/**
 * Around a change that moves the scope's submissions to another location, survey or day (`change` writes it and
 * flushes): their contributions taken away where they were and added where they are after. The foreign keys that
 * set a deleted location or survey to null on its submissions move them too.
 */
export async function movingThemes<T>(tx: EntityManager, business: string, scope: ThemeScope, change: () => Promise<T>): Promise<T> {
  await shareAnalyticsLock(tx, business);
  const ids = await lockSubmissions(tx, business, scope);
  if (ids.length) await applyThemes(tx, business, { submissions: ids }, -1);
  const changed = await change();
  if (ids.length) await applyThemes(tx, business, { submissions: ids }, 1);
  return changed;
}

/** Before a submission is deleted (its analyses go with it by cascade): its contributions taken away. */
export async function withdrawThemes(tx: EntityManager, business: string, submission: string): Promise<void> {
  await shareAnalyticsLock(tx, business);
  if ((await lockSubmissions(tx, business, { submission })).length) await applyThemes(tx, business, { submission }, -1);
}

/**
 * A business's theme rollups counted again from its stored analyses, in the rebuild's transaction (which holds the
 * analytics lock exclusively and has set each submission's day): rows that fell to zero go too.
 */
export async function rebuildThemes(tx: EntityManager, business: string): Promise<{ themeRollupRows: number; themeWordRollupRows: number }> {
  await clearThemes(tx, business);
  await applyThemes(tx, business, { all: true }, 1);
  const { themes, words } = await themeRollupRows(tx, business);
  return { themeRollupRows: themes, themeWordRollupRows: words };
}
