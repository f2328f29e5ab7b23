import type { EntityManager } from '@mikro-orm/core';
import { db } from '../../kit/db/db.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { MenuItem } from './menu-item.entity.js';

/** The menu module's statements. */

/** A business's newest `limit` menu items, id and name only (what finding dishes in a guest's words needs). */
export function menuNames(em: EntityManager, business: string, limit: number): Promise<{ id: string; name: string }[]> {
  return db<{ menu_item: TableOf<MenuItem, 'business'> }>(em)
    .selectFrom('menu_item')
    .select(['id', 'name'])
    .where('business_id', '=', business)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
