import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';

/**
 * "Analyse this submission's text answers": one row per submission, queued in the transaction that stores its text
 * (a completion, a change, a theme edit), leased by the workers with FOR UPDATE SKIP LOCKED and deleted in the
 * transaction that writes the analysis. The worker locks the row before it reads the answers, so a change queued
 * meanwhile either waits for that commit (and queues the row anew) or is read. No foreign key to the submission: the
 * ORM writes the submission at its flush, after the job; a job whose submission is gone is dropped. Keyed by business
 * first, as tenant tables are (docs/scaling.md).
 */
@Entity({ tableName: 'text_analysis_job' })
@Index({
  name: 'text_analysis_job_due_idx',
  expression: 'create index "text_analysis_job_due_idx" on "text_analysis_job" ("due_at") where "due_at" is not null',
})
export class TextAnalysisJob {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'string', length: 40, fieldName: 'submission_id' }) submission!: string;
  @Property({ type: 'integer' }) attempts: Opt<number> = 0;
  /** Null once it failed for good (error says why). */
  @Property({ type: 'datetime', length: 3, nullable: true }) dueAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) lockedUntil?: Date | null;
  @Property({ type: 'string', length: 60, nullable: true }) lockedBy?: string | null;
  @Property({ type: 'text', nullable: true }) error?: string | null;
  @Property({ type: 'datetime', length: 3 }) createdAt: Opt<Date> = new Date();
}
