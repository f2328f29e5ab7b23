import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { SubmissionAnalysisTask } from '../modules/submission/index.js';
import { openCaseForAnalysis } from '../modules/case/index.js';
import { nextTextAnalysisDue, TEXT_ANALYSIS_CHANNEL } from '../modules/text/index.js';
import type { DuePoll } from './due.poll.js';
import { startOutboxLoop, type OutboxLoop } from './outbox.loop.js';

/** The analysis is CPU work of well under a millisecond a comment: two at a time leave the process its requests. */
const CONCURRENCY = 2;

/** Reads guests' text answers from the text_analysis_job table on the outbox loop (issue 52, item 3). */
export async function startTextAnalysis(deps: { orm: MikroORM; logger: Logger; clock?: () => Date; poll?: DuePoll }): Promise<OutboxLoop> {
  const logger = deps.logger.child({ component: 'text-analysis' });
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:text:${randomBytes(4).toString('hex')}`;
  // A rule on themes or sentiment is matched once the answers are read, in the same transaction (docs/cases.md).
  const task = new SubmissionAnalysisTask(deps.orm, { workerId, clock: deps.clock ?? (() => new Date()), logger, analysed: openCaseForAnalysis });
  return startOutboxLoop(task, {
    name: 'text analysis workers',
    channel: TEXT_ANALYSIS_CHANNEL,
    due: nextTextAnalysisDue,
    orm: deps.orm,
    logger,
    concurrency: CONCURRENCY,
    poll: deps.poll,
    clock: deps.clock,
  });
}
