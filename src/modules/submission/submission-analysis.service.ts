import type { EntityManager } from '@mikro-orm/postgresql';
import { readerOf, type TextAnalysis } from '../text/index.js';
import { replacingThemes } from '../theme-rollup/index.js';
import { pendingAnalysis, replaceAnalyses, textAnswersOf } from './submission.repo.js';

/**
 * Reads the submission's text answers now, with its business's theme settings and menu, and replaces their stored
 * analyses (one per text answer; those of answers gone are dropped). Answers them, or null when the submission is gone.
 */
export async function analyseSubmission(
  tx: EntityManager,
  business: string,
  submission: string,
): Promise<Array<Omit<TextAnalysis, 'sentiment'> & { step: string; score: number; label: TextAnalysis['sentiment']['label'] }> | null> {
  const found = await textAnswersOf(tx, business, submission);
  if (!found) return null;
  const read = await readerOf(tx, found.business);
  const rows = found.answers.map(({ step, text }) => {
    const { sentiment, ...rest } = read(text);
    return { step, score: sentiment.score, label: sentiment.label, ...rest };
  });
  // The theme rollups follow the analyses in this transaction (null: the submission went meanwhile).
  const replaced = await replacingThemes(tx, found.business, submission, () => replaceAnalyses(tx, found.business, submission, rows));
  return replaced === null ? null : rows;
}

/**
 * Analyses the completed submissions with a text answer and no analysis yet (of one business, or all), in id order,
 * `batch` at a time, each in its own transaction, at most `limit` of them: stopped anywhere, a run goes on where the
 * last one left off, since what it analysed is no longer wanting. `progress` hears after each batch.
 */
export async function analyseExisting(
  em: EntityManager,
  options: { business?: string; batch: number; limit?: number; progress?: (done: number, total: number, last: string) => void },
): Promise<{ analysed: number; remaining: number }> {
  const { total } = await pendingAnalysis(em, { business: options.business, count: true });
  let done = 0;
  let after = '';
  const limit = options.limit ?? Infinity;
  while (done < limit) {
    const { ids } = await pendingAnalysis(em, { business: options.business, after, limit: Math.min(options.batch, limit - done) });
    if (!ids.length) break;
    for (const { id, business } of ids) {
      await em.fork().transactional((tx) => analyseSubmission(tx, business, id));
      done++;
    }
    after = ids.at(-1)!.id;
    options.progress?.(done, total, after);
  }
  return { analysed: done, remaining: Math.max(0, total - done) };
}
