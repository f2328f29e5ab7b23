import type { EntityManager } from '@mikro-orm/core';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import { queueJob, queueSince, TEXT_ANALYSIS_CHANNEL } from './text.repo.js';

/**
 * Queues the analysis of a submission's text answers in `em`'s transaction (or alone, when it has none): one row, and
 * the workers woken once it commits (kit/signals/signals.ts). The caller knows the submission holds a text answer.
 */
export async function queueTextAnalysis(em: EntityManager, business: string, submission: string): Promise<void> {
  await queueJob(em, business, submission);
  wakeAfterCommit(em, TEXT_ANALYSIS_CHANNEL);
}

/** Queues every completed submission of the business with a text answer since `since`; answers how many. */
export async function queueTextAnalysisSince(em: EntityManager, business: string, since: Date): Promise<number> {
  const queued = await queueSince(em, business, since);
  if (queued) wakeAfterCommit(em, TEXT_ANALYSIS_CHANNEL);
  return queued;
}
