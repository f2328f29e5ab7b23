import { SubmissionAnalysisTask } from '../modules/submission/index.js';
import { openCaseForAnalysis } from '../modules/case/index.js';
import { nextTextAnalysisDue, TEXT_ANALYSIS_CHANNEL } from '../modules/text/index.js';
import { startOutboxRunner, type OutboxLoop, type OutboxRunnerDeps } from './outbox.loop.js';

/** The analysis is CPU work of well under a millisecond a comment: two at a time leave the process its requests. */
const CONCURRENCY = 2;

/** Reads guests' text answers from the text_analysis_job table on the outbox loop (issue 52, item 3). */
export async function startTextAnalysis(deps: Pick<OutboxRunnerDeps, 'orm' | 'logger' | 'clock' | 'poll'>): Promise<OutboxLoop> {
  return startOutboxRunner(
    { ...deps, logger: deps.logger.child({ component: 'text-analysis' }) },
    {
      tag: 'text',
      // A rule on themes or sentiment is matched once the answers are read, in the same transaction (docs/cases.md).
      task: (basics) => new SubmissionAnalysisTask(deps.orm, { ...basics, analysed: openCaseForAnalysis }),
      loop: { name: 'text analysis workers', channel: TEXT_ANALYSIS_CHANNEL, due: nextTextAnalysisDue, concurrency: CONCURRENCY },
    },
  );
}
