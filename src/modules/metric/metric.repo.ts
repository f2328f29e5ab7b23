import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';

/** The metric module's statements. */

interface MetricTables {
  survey_step: { id: string; business_id: string; metric_ids: unknown };
}

/** Step ids of the business whose metrics list holds this metric (a containment lookup on the jsonb list). */
export async function stepIdsRatingMetric(em: EntityManager, business: string, metricId: string): Promise<string[]> {
  const rows = await db<MetricTables>(em)
    .selectFrom('survey_step')
    .select('id')
    .where('business_id', '=', business)
    .where(sql<boolean>`metric_ids @> ${JSON.stringify([metricId])}::jsonb`)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
