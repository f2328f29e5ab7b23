import type { EntityManager } from '@mikro-orm/core';
import { db } from '../../kit/db.js';
import type { TableOf } from '../../kit/entity.table.js';
import { rowsWhere } from '../../kit/entity.rows.js';
import { AlertRule } from './alert-rule.entity.js';
import type { Location } from '../location/location.entity.js';
import type { Survey } from '../survey/survey.entity.js';

/** The alert module's statements. */

type Tables = { location: TableOf<Location, 'business'>; survey: TableOf<Survey, 'business'> };

/** Which of `ids` name a `kind` of `business`. */
export async function ownedIds(em: EntityManager, kind: 'location' | 'survey', business: string, ids: string[]): Promise<Set<string>> {
  const strings = ids.filter((id): id is string => typeof id === 'string');
  if (!strings.length) return new Set();
  const rows = await db<Tables>(em).selectFrom(kind).select('id').where('business_id', '=', business).where('id', 'in', strings).execute();
  return new Set(rows.map((r) => r.id));
}

/** A business's rules, oldest first, as plain rows of their properties (prepared: each completed answer reads them). */
export const rulesOfBusiness = (em: EntityManager, business: string) => rowsWhere(em, AlertRule, 'business', [business], [{ createdAt: 'asc' }, { id: 'asc' }]);
