import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db, runPrepared, runShaped } from '../../kit/db/db.js';
import type { Condition } from '../../kit/db/entity.rows.js';
import type { Answer } from './submission.entity.js';
import { hasTextAnswer, queueJobsOf } from '../text/index.js';
import { insertEvents } from '../event/index.js';

/** The submission module's statements. */

/**
 * An active or archived survey with its steps (by position) and their metrics, in one statement (the survey page's
 * hot path); the steps and metrics as json, shaped like the entities.
 */
export async function surveyWithSteps<Row>(em: EntityManager, business: string, survey: string): Promise<Row | undefined> {
  const { rows } = await sql<Row>`
    select s.id, s.business_id, s.name, s.status, s.closing_text, s.review_url, s.languages,
      coalesce((select json_agg(json_build_object('id', st.id, 'position', st.position, 'type', st.type, 'required', st.required,
          'content', st.content, 'inputType', st.input_type, 'validation', st.validation, 'logic', st.logic, 'metricIds', st.metric_ids)
        order by st.position) from survey_step st where st.survey_id = s.id and st.business_id = s.business_id), '[]') as steps,
      coalesce((select json_agg(json_build_object('id', m.id, 'name', m.name, 'scaleMin', m.scale_min, 'scaleMax', m.scale_max))
        from metric m where m.business_id = s.business_id
          and m.id in (select jsonb_array_elements_text(st.metric_ids) from survey_step st where st.survey_id = s.id and st.business_id = s.business_id)), '[]') as metrics
    from survey s where s.id = ${survey} and s.business_id = ${business}`.execute(db(em));
  return rows[0];
}

/**
 * The latest page response of this device (its session id) to the survey, as a row of `submission` with its version
 * (`row_version`: the row's xmin, which every update of it changes); locked on demand.
 */
export async function latestDeviceResponse(
  em: EntityManager,
  business: string,
  survey: string,
  sessionId: string,
  lock: boolean,
): Promise<(Record<string, unknown> & { row_version: string }) | undefined> {
  // Every page view and step of a returning guest asks it: prepared, in its two shapes.
  const build = () => {
    const latest = db(em)
      .selectFrom('submission')
      .selectAll()
      .select(sql<string>`xmin::text`.as('row_version'))
      .where('business_id', '=', business)
      .where('survey_id', '=', survey)
      .where('session_id', '=', sessionId)
      .where('source', '=', sql.lit('page'))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(sql.lit(1));
    return lock ? latest.forUpdate() : latest;
  };
  const [row] = await runShaped<Record<string, unknown> & { row_version: string }>(
    em,
    lock ? 'submission.deviceLatest.locked' : 'submission.deviceLatest',
    [business, survey, sessionId],
    build,
    { prepare: true },
  );
  return row;
}

/** The columns a page response is created with (its analytics columns are the table's triggers', lowest_rating generated). */
const RESPONSE_COLUMNS = sql.raw(
  [
    'id',
    'business_id',
    'survey_id',
    'answers',
    'guest_id',
    'session_id',
    'metadata',
    'order_id',
    'location_id',
    'status',
    'completed_at',
    'source',
    'channel',
    'created_at',
    'updated_at',
  ].join(', '),
);

/**
 * The event of the change the statement's CTE `s` wrote (its business and time as `business_id` and `at`): inserted
 * only when `s` wrote a row, answering the audience trigger's `fanout_pending` (whom to tell: event.signal.ts).
 */
const eventOfChange = (type: string, event: { id: string; json: string }) =>
  insertEvents(sql`select ${event.id}::text, s.business_id, ${sql.lit(type)}, ${event.json}::jsonb, s.at from s`);

/**
 * A new page response (`row`: its columns as JSON) and its `submission.created` event (`event.json`: the event's
 * data), in one statement committed alone or in `em`'s transaction. Answers the event's `fanout_pending` (whom to tell:
 * event.signal.ts).
 */
export async function insertResponse(
  em: EntityManager,
  row: string,
  event: { id: string; json: string },
): Promise<{ fanout_pending: boolean | null; version: string }> {
  const [written] = await runPrepared<{ fanout_pending: boolean | null; version: string }>(
    em,
    'submission.insertResponse',
    sql`with s as (
  insert into submission (${RESPONSE_COLUMNS}) select ${RESPONSE_COLUMNS} from jsonb_populate_record(null::submission, ${row}::jsonb)
  returning business_id, created_at as at, xmin::text as version
)
${eventOfChange('submission.created', event)}, (select version from s)`,
  );
  return written;
}

/**
 * A step's answers (and location) stored on a partial response, only while it is the version the step was decided on
 * (`version`, latestDeviceResponse's): answers its new version, or undefined when it was not. A concurrent step of the
 * same device, or the response completed meanwhile, leaves it unwritten, for the caller to decide again.
 */
export async function updateResponse(
  em: EntityManager,
  r: { id: string; version: string; answers: Answer[]; location: string | null; updatedAt: Date },
): Promise<string | undefined> {
  const [row] = await runPrepared<{ version: string }>(
    em,
    'submission.updateResponse',
    sql`update submission set answers = ${JSON.stringify(r.answers)}::jsonb, location_id = ${r.location}, updated_at = ${r.updatedAt}
where id = ${r.id} and xmin::text = ${r.version} and status = 'partial'
returning xmin::text as version`,
  );
  return row?.version;
}

/**
 * A partial response completed and its `submission.completed` event, in one statement committed alone, only while it
 * is the version the completion was decided on (as updateResponse); with `analyse` (it holds a text answer), its
 * analysis job too (text_analysis_job, as the text module queues it). Answers the event's `fanout_pending` (whom to
 * tell), or undefined when that version is gone.
 */
export async function completeResponse(
  em: EntityManager,
  r: {
    id: string;
    version: string;
    answers: Answer[];
    location: string | null;
    metadata: Record<string, unknown>;
    completedAt: Date;
    updatedAt: Date;
    analyse: boolean;
  },
  event: { id: string; json: string },
): Promise<{ fanout_pending: boolean | null } | undefined> {
  const [written] = await runPrepared<{ fanout_pending: boolean | null }>(
    em,
    'submission.completeResponse',
    sql`with s as (
  update submission set answers = ${JSON.stringify(r.answers)}::jsonb, location_id = ${r.location}, metadata = ${JSON.stringify(r.metadata)}::jsonb,
    status = 'completed', completed_at = ${r.completedAt}, updated_at = ${r.updatedAt}
  where id = ${r.id} and xmin::text = ${r.version} and status = 'partial'
  returning id, business_id, completed_at as at
), job as (
  ${queueJobsOf(sql`s where ${r.analyse}::boolean`)}
)
${eventOfChange('submission.completed', event)}`,
  );
  return written;
}

/** A submission's text answers (answers to `text` steps, more than blanks), in the survey's order, with its business. */
export async function textAnswersOf(
  em: EntityManager,
  business: string,
  submission: string,
): Promise<{ business: string; answers: { step: string; text: string }[] } | undefined> {
  const { rows } = await sql<{ business: string; answers: { step: string; text: string }[] }>`
    select s.business_id as business,
      coalesce((select json_agg(json_build_object('step', a->>'step', 'text', a->>'value') order by st.position)
        from jsonb_array_elements(s.answers) a join survey_step st on st.id = a->>'step' and st.business_id = s.business_id and st.type = 'text'
        where jsonb_typeof(a->'value') = 'string' and btrim(a->>'value') <> ''), '[]') as answers
    from submission s where s.business_id = ${business} and s.id = ${submission}`.execute(db(em));
  return rows[0];
}

export interface AnalysisRow {
  step: string;
  language: string;
  score: number;
  label: string;
  themes: unknown[];
  dishes: unknown[];
}

/**
 * The submission's analyses replaced by `rows` (one per text answer): those of answers no longer there go. Its
 * themes (answer_theme: each theme and sentiment once) are replaced with them, in the same statement.
 */
export async function replaceAnalyses(em: EntityManager, business: string, submission: string, rows: AnalysisRow[]): Promise<void> {
  await sql`with r as (
  select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(step text, language text, score float8, label text, themes jsonb, dishes jsonb)
), t as (
  select distinct t.theme, t.sentiment from r cross join lateral jsonb_to_recordset(r.themes) as t(theme text, sentiment text)
), gone as (
  delete from answer_analysis where business_id = ${business} and submission_id = ${submission} and not (step = any(${rows.map((r) => r.step)}::text[]))
), themes_gone as (
  delete from answer_theme x where x.business_id = ${business} and x.submission_id = ${submission}
     and not exists (select 1 from t where t.theme = x.theme and t.sentiment = x.sentiment)
), themes_new as (
  insert into answer_theme (business_id, theme, sentiment, submission_id) select ${business}, t.theme, t.sentiment, ${submission} from t
  on conflict do nothing
)
insert into answer_analysis (submission_id, step, business_id, language, score, label, themes, dishes, analysed_at)
select ${submission}, r.step, ${business}, r.language, r.score, r.label, r.themes, r.dishes, now() from r
on conflict (business_id, submission_id, step) do update set language = excluded.language, score = excluded.score, label = excluded.label,
  themes = excluded.themes, dishes = excluded.dishes, analysed_at = excluded.analysed_at`.execute(db(em));
}

/**
 * The feedback list's theme filter (SubmissionWhere.theme) as a condition on the submission's id: those of the
 * business whose analyses speak of the theme (with that sentiment, when given), read from answer_theme's key.
 */
export function themeCondition(business: string, filter: { theme: string; sentiment?: string | null }): Condition {
  const sentiment = filter.sentiment ?? null;
  return {
    property: 'id',
    op: 'in select',
    value: {
      shape: sentiment == null ? 'answer_theme' : 'answer_theme+sentiment',
      query: sql`select submission_id from answer_theme where business_id = ${business} and theme = ${filter.theme}${sentiment == null ? sql`` : sql` and sentiment = ${sentiment}`}`,
    },
  };
}

/**
 * The completed submissions with a text answer and no analysis (of one business, or all): how many (`count`), or the
 * next `limit` ids after `after`, in id order (keyset: a run resumes after the last id it saw).
 */
export async function pendingAnalysis(
  em: EntityManager,
  q: { business?: string; after?: string; limit?: number; count?: boolean },
): Promise<{ total: number; ids: Array<{ id: string; business: string }> }> {
  const where = sql`s.status = 'completed' and ${q.business ? sql`s.business_id = ${q.business}` : sql`true`}
    and ${hasTextAnswer(sql.ref('s.answers'), sql.ref('s.business_id'))}
    and not exists (select 1 from answer_analysis x where x.business_id = s.business_id and x.submission_id = s.id)`;
  if (q.count) {
    const { rows } = await sql<{ total: number }>`select count(*)::int as total from submission s where ${where}`.execute(db(em));
    return { total: rows[0].total, ids: [] };
  }
  const { rows } = await sql<{
    id: string;
    business: string;
  }>`select s.id, s.business_id as business from submission s where ${where} and s.id > ${q.after ?? ''} order by s.id limit ${q.limit ?? 100}`.execute(db(em));
  return { total: 0, ids: rows };
}
