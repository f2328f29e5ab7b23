import type { EntityManager } from '@mikro-orm/core';
import { sql, type RawBuilder } from 'kysely';
import { db } from '../../kit/db/db.js';
import type { ThemeWords } from './theme-settings.entity.js';

/** The text module's statements: the analysis queue (text_analysis_job) and the businesses' theme settings. */

/** The analysis workers' LISTEN channel: only what queues an analysis notifies it. */
export const TEXT_ANALYSIS_CHANNEL = 'text_analysis';

/** When the first job not leased falls due (null: none), for the workers' look at every queue (due.poll.ts). */
export const nextTextAnalysisDue = sql<Date | null>`(select due_at from text_analysis_job
  where due_at is not null and (locked_until is null or locked_until < now()) order by due_at limit 1)`;

/** A job's row, queued for a submission, or made due now when one is queued already (a retry's wait is cut short). */
const QUEUE = sql`on conflict (business_id, submission_id) do update set due_at = now(), attempts = 0, error = null`;

/** The statement that queues a job for each row of `rows` (a CTE's name and condition: its `id` and `business_id`). */
export const queueJobsOf = (rows: RawBuilder<unknown>) =>
  sql`insert into text_analysis_job (submission_id, business_id, due_at, created_at) select id, business_id, now(), now() from ${rows} ${QUEUE}`;

export async function queueJob(em: EntityManager, business: string, submission: string): Promise<void> {
  await sql`insert into text_analysis_job (submission_id, business_id, due_at, created_at) values (${submission}, ${business}, now(), now()) ${QUEUE}`.execute(
    db(em),
  );
}

/** A text answer: an answer to a `text` step whose value is a string with more than blanks in it. */
export const hasTextAnswer = (
  answers: ReturnType<typeof sql.ref>,
  business: ReturnType<typeof sql.ref>,
) => sql<boolean>`exists (select 1 from jsonb_array_elements(${answers}) a
  join survey_step st on st.id = a->>'step' and st.business_id = ${business} and st.type = 'text'
  where jsonb_typeof(a->'value') = 'string' and btrim(a->>'value') <> '')`;

/** Queues every completed submission of the business since `since` that holds a text answer; answers how many. */
export async function queueSince(em: EntityManager, business: string, since: Date): Promise<number> {
  const result = await sql`insert into text_analysis_job (submission_id, business_id, due_at, created_at)
    select s.id, s.business_id, now(), now() from submission s
     where s.business_id = ${business} and s.status = 'completed' and s.created_at >= ${since} and ${hasTextAnswer(sql.ref('s.answers'), sql.ref('s.business_id'))}
     order by s.id
    ${QUEUE}`.execute(db(em));
  return Number(result.numAffectedRows ?? 0);
}

export interface ClaimedJob extends JobKey {
  attempts: number;
}

/** Leases up to `limit` due jobs to `worker` (SKIP LOCKED: workers take disjoint sets). */
export async function claimJobs(em: EntityManager, q: { leaseMs: number; worker: string; now: Date; limit: number }): Promise<ClaimedJob[]> {
  const { rows } = await sql<ClaimedJob>`
    update text_analysis_job set locked_until = now() + make_interval(secs => ${q.leaseMs}::double precision / 1000), locked_by = ${q.worker}
     where (business_id, submission_id) in (select business_id, submission_id from text_analysis_job
                   where due_at <= ${q.now} and (locked_until is null or locked_until < now())
                   order by due_at limit ${q.limit} for update skip locked)
    returning submission_id as submission, business_id as business, attempts`.execute(db(em));
  return rows;
}

/** A job as its key names it. */
export interface JobKey {
  business: string;
  submission: string;
}

export async function releaseJobs(em: EntityManager, worker: string, jobs: JobKey[]): Promise<void> {
  if (!jobs.length) return;
  await sql`update text_analysis_job set locked_until = null, locked_by = null
    where (business_id, submission_id) in (select * from unnest(${jobs.map((j) => j.business)}::text[], ${jobs.map((j) => j.submission)}::text[]))
      and locked_by = ${worker}`.execute(db(em));
}

/**
 * Locks the job's row till `em`'s transaction ends, while `worker` still holds its lease; false when the lease was
 * lost (run out and taken by another worker): then this worker writes nothing.
 */
export async function holdJob(em: EntityManager, job: JobKey, worker: string): Promise<boolean> {
  const { rows } = await sql`select 1 from text_analysis_job
    where business_id = ${job.business} and submission_id = ${job.submission} and locked_by = ${worker} and locked_until > now() for update`.execute(db(em));
  return rows.length > 0;
}

export async function deleteJob(em: EntityManager, job: JobKey): Promise<void> {
  await sql`delete from text_analysis_job where business_id = ${job.business} and submission_id = ${job.submission}`.execute(db(em));
}

/** The lease given back with the job due again at `dueAt` (a retry), or null: failed for good. */
export async function settleJob(
  em: EntityManager,
  job: JobKey,
  worker: string,
  change: { dueAt: Date | null; attempts?: number; error?: string | null },
): Promise<void> {
  await sql`update text_analysis_job set locked_until = null, locked_by = null, due_at = ${change.dueAt},
      attempts = coalesce(${change.attempts ?? null}::int, attempts), error = ${change.error ?? null}
    where business_id = ${job.business} and submission_id = ${job.submission} and locked_by = ${worker}`.execute(db(em));
}

export interface ThemeSettingsRow {
  words: ThemeWords[];
  off: string[];
  updated_at: Date;
}

export async function themeSettingsRow(em: EntityManager, business: string): Promise<ThemeSettingsRow | undefined> {
  const { rows } = await sql<ThemeSettingsRow>`select words, off, updated_at from theme_settings where business_id = ${business}`.execute(db(em));
  return rows[0];
}

export async function saveThemeSettings(em: EntityManager, business: string, settings: { words: ThemeWords[]; off: string[] }): Promise<ThemeSettingsRow> {
  const { rows } = await sql<ThemeSettingsRow>`insert into theme_settings (business_id, words, off, created_at, updated_at)
    values (${business}, ${JSON.stringify(settings.words)}::jsonb, ${JSON.stringify(settings.off)}::jsonb, now(), now())
    on conflict (business_id) do update set words = excluded.words, off = excluded.off, updated_at = clock_timestamp()
    returning words, off, updated_at`.execute(db(em));
  return rows[0];
}
