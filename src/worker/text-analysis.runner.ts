import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { SubmissionAnalysisTask } from '../modules/submission/index.js';
import { openCaseForAnalysis } from '../modules/case/index.js';
import { nextTextAnalysisDue, TEXT_ANALYSIS_CHANNEL } from '../modules/text/index.js';
import type { DuePoll } from './due.poll.js';
import { startOutboxRunner, type OutboxLoop } from './outbox.loop.js';

/** The analysis is CPU work of well under a millisecond a comment: two at a time leave the process its requests. */
const CONCURRENCY = 2;

/** Reads guests' text answers from the text_analysis_job table on the outbox loop (issue 52, item 3). */
export async function startTextAnalysis(deps: { orm: MikroORM; logger: Logger; clock?: () => Date; poll?: DuePoll }): Promise<OutboxLoop> {
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
