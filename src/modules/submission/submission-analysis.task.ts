import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type SentimentLabel, type ThemeFinding, claimJobs, deleteJob, holdJob, releaseJobs, settleJob, type ClaimedJob } from '../text/index.js';
import type { Logger } from 'pino';
import type { AnswerAnalysis } from './answer-analysis.entity.js';
import type { AnswerAnalysisType } from './answer-analysis.type.js';
import { analyseSubmission } from './submission-analysis.service.js';

/** What follows a submission's analyses stored in `tx` (the rules on themes: the runner binds the case module's). */
export type SubmissionAnalysedStep = (
  tx: EntityManager,
  business: string,
  submission: string,
  analyses: Array<{ label: SentimentLabel; themes: ThemeFinding[] }>,
) => Promise<unknown>;

const TEXT_ANALYSIS_LEASE_MS = 60_000;
/** Waits before the 2nd to 5th try of a job that failed (a fault of ours: a bug, the database away). */
const RETRY_MS = [5_000, 30_000, 120_000, 600_000];

/** A stored analysis as GraphQL shows it. */
export const presentAnalysis = (a: AnswerAnalysis): AnswerAnalysisType => ({
  step: a.step,
  language: a.language,
  sentiment: { score: a.score, label: a.label },
  themes: a.themes,
  dishes: a.dishes,
  analysedAt: a.analysedAt,
});

/**
 * Reads the text answers of submissions queued in text_analysis_job (src/worker/outbox.loop.ts runs it): in one
 * transaction the job's row is locked (while this worker's lease holds), the answers read, their analyses replaced
 * and the job deleted, so each queued change is read once and a lost lease writes nothing. What follows the analyses
 * (`analysed`: a case a rule on themes opens) is written in the same transaction.
 */
export class SubmissionAnalysisTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { workerId: string; clock: () => Date; logger: Logger; analysed?: SubmissionAnalysedStep },
  ) {}

  claim(limit: number): Promise<ClaimedJob[]> {
    return claimJobs(this.orm.em.fork(), { leaseMs: TEXT_ANALYSIS_LEASE_MS, worker: this.options.workerId, now: this.options.clock(), limit });
  }

  release(jobs: ClaimedJob[]) {
    return releaseJobs(this.orm.em.fork(), this.options.workerId, jobs);
  }

  async run(job: ClaimedJob): Promise<void> {
    const worker = this.options.workerId;
    try {
      await this.orm.em.fork().transactional(async (tx) => {
        if (!(await holdJob(tx, job, worker))) return;
        const analyses = await analyseSubmission(tx, job.business, job.submission);
        if (analyses && this.options.analysed) await this.options.analysed(tx, job.business, job.submission, analyses);
        await deleteJob(tx, job);
      });
    } catch (err) {
      const attempts = job.attempts + 1;
      const error = err instanceof Error ? err.message : String(err);
      this.options.logger.error({ err, submission: job.submission, attempts }, 'text analysis failed');
      const dueAt = attempts <= RETRY_MS.length ? new Date(this.options.clock().getTime() + RETRY_MS[attempts - 1]) : null;
      await settleJob(this.orm.em.fork(), job, worker, { dueAt, attempts, error: error.slice(0, 500) });
    }
  }
}
