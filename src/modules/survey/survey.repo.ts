import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';

/** The survey module's statements. */

interface SurveyTables {
  survey_step: { business_id: string; survey_id: string; position: number };
}

/** Moves the positions from..to (inclusive) of one survey's steps by `by`, in one statement. */
export async function shiftStepPositions(tx: EntityManager, business: string, survey: string, by: 1 | -1, from: number, to: number): Promise<void> {
  await db<SurveyTables>(tx)
    .updateTable('survey_step')
    .set({ position: sql<number>`position + ${by}` })
    .where('business_id', '=', business)
    .where('survey_id', '=', survey)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}
