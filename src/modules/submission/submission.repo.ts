import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db, runShaped } from '../../kit/db.js';

/** The submission module's statements. */

/**
 * An active or archived survey with its steps (by position) and their metrics, in one statement (the survey page's
 * hot path); the steps and metrics as json, shaped like the entities.
 */
export async function surveyWithSteps<Row>(em: EntityManager, business: string, survey: string): Promise<Row | undefined> {
  const { rows } = await sql<Row>`
    select s.id, s.business_id, s.name, s.status, s.closing_text, s.review_url,
      coalesce((select json_agg(json_build_object('id', st.id, 'position', st.position, 'type', st.type, 'required', st.required,
          'content', st.content, 'inputType', st.input_type, 'validation', st.validation, 'logic', st.logic, 'metricIds', st.metric_ids)
        order by st.position) from survey_step st where st.survey_id = s.id), '[]') as steps,
      coalesce((select json_agg(json_build_object('id', m.id, 'name', m.name, 'scaleMin', m.scale_min, 'scaleMax', m.scale_max))
        from metric m where m.id in (select jsonb_array_elements_text(st.metric_ids) from survey_step st where st.survey_id = s.id)), '[]') as metrics
    from survey s where s.id = ${survey} and s.business_id = ${business}`.execute(db(em));
  return rows[0];
}

/** The latest page response of this device (its session id) to the survey, as a row of `submission`; locked on demand. */
export async function latestDeviceResponse(em: EntityManager, survey: string, sessionId: string, lock: boolean): Promise<Record<string, unknown> | undefined> {
  // Every page view and step of a returning guest asks it: prepared, in its two shapes.
  const build = () => {
    const latest = db(em)
      .selectFrom('submission')
      .selectAll()
      .where('survey_id', '=', survey)
      .where('session_id', '=', sessionId)
      .where('source', '=', sql.lit('page'))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(sql.lit(1));
    return lock ? latest.forUpdate() : latest;
  };
  const [row] = await runShaped<Record<string, unknown>>(em, lock ? 'submission.deviceLatest.locked' : 'submission.deviceLatest', [survey, sessionId], build, { prepare: true });
  return row;
}
