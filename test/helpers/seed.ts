import type { MikroORM } from '@mikro-orm/postgresql';
import { newId } from '../../src/shared/id.js';

/**
 * `surveys` surveys of `steps` metrics steps, each rating `metricsPerStep` of the business's metrics, written by
 * plain SQL in three statements: fast enough to seed the large pages the SQL-count and SQL-parity tests need.
 */
export async function seedSurveys(orm: MikroORM, business: string, surveys: number, steps = 5, metricsPerStep = 3) {
  const conn = orm.em.getConnection();
  const now = Date.now();
  const at = (i: number) => new Date(now + i);
  const metrics = Array.from({ length: metricsPerStep * 2 }, (_, i) => ({ id: newId('metric'), name: `Metric ${i}`, at: at(i) }));
  // Arrays as one JSON parameter: the ORM would expand a JS array parameter into a list of placeholders.
  await conn.execute(
    `insert into metric (id, business_id, name, scale_min, scale_max, created_at, updated_at)
     select id, ?, name, 1, 5, at, at from jsonb_to_recordset(?::jsonb) as t(id text, name text, at timestamptz)`,
    [business, JSON.stringify(metrics)],
  );
  const surveyRows = Array.from({ length: surveys }, (_, i) => ({ id: newId('survey'), name: `Survey ${i}`, at: at(i) }));
  await conn.execute(
    `insert into survey (id, business_id, name, status, created_at, updated_at)
     select id, ?, name, 'active', at, at from jsonb_to_recordset(?::jsonb) as t(id text, name text, at timestamptz)`,
    [business, JSON.stringify(surveyRows)],
  );
  const stepRows = surveyRows.flatMap((s) =>
    Array.from({ length: steps }, (_, position) => ({
      id: newId('surveyStep'),
      survey: s.id,
      position,
      metrics: metrics.slice(position % 2, (position % 2) + metricsPerStep).map((m) => m.id),
    })),
  );
  await conn.execute(
    `insert into survey_step (id, business_id, survey_id, position, type, required, content, metric_ids, created_at, updated_at)
     select id, ?, survey, position, 'metrics', false, '{}'::jsonb, metrics, now(), now()
     from jsonb_to_recordset(?::jsonb) as t(id text, survey text, position int, metrics jsonb)`,
    [business, JSON.stringify(stepRows)],
  );
  return { surveys: surveyRows.map((s) => s.id), metrics: metrics.map((m) => m.id) };
}
