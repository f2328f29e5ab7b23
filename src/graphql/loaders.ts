import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Business } from '../modules/business/business.entity.js';
import { Survey } from '../modules/survey/survey.entity.js';
import { SurveyStep } from '../modules/survey/survey-step.entity.js';
import { Metric } from '../modules/metric/metric.entity.js';
import { Order } from '../modules/order/order.entity.js';
import { OrderItem } from '../modules/order/order-item.entity.js';
import { Location } from '../modules/location/location.entity.js';
import { MenuItem } from '../modules/menu/menu-item.entity.js';
import { Submission } from '../modules/submission/submission.entity.js';

/** One SELECT ... WHERE id IN (...) per batch, answers in the order of the keys (null for unknown ids). */
export function byIdLoader<T extends { id: string }>(em: EntityManager, entity: new () => T) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = (await em.find(entity, { id: { $in: [...ids] } } as never)) as T[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/**
 * Children of many parents in one SELECT ... WHERE <fk> IN (...), grouped per parent in `orderBy` order. Rows come
 * back as plain objects of the entity's properties, not managed entities: a large page is read, never changed, and
 * hydrating hundreds of entities into the identity map was the largest CPU cost of a three-level page. So only for
 * entities whose columns need no custom type conversion (no decimals).
 */
export function byParentLoader<T extends object>(
  em: EntityManager,
  entity: new () => T,
  foreignKey: keyof T & string,
  orderBy: Record<string, 'asc' | 'desc'>[],
) {
  return new DataLoader<string, T[]>(async (parentIds) => {
    const rows = (await em
      .createQueryBuilder(entity)
      .select('*')
      .where({ [foreignKey]: { $in: [...parentIds] } } as never)
      .orderBy(orderBy as never)
      .execute('all', true)) as T[];
    const groups = new Map<string, T[]>(parentIds.map((id) => [id, []]));
    for (const row of rows) groups.get((row as Record<string, unknown>)[foreignKey] as string)?.push(row);
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

/** byIdLoader's plain-row twin, for the same reason and with the same restriction as byParentLoader. */
export function plainByIdLoader<T extends { id: string }>(em: EntityManager, entity: new () => T) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = (await em.createQueryBuilder(entity).select('*').where({ id: { $in: [...ids] } } as never).execute('all', true)) as T[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/** As byParentLoader, through managed entities (decimals and other custom types converted). */
export function entityByParentLoader<T extends object>(
  em: EntityManager,
  entity: new () => T,
  foreignKey: keyof T & string,
  orderBy: Record<string, 'asc' | 'desc'>[],
) {
  return new DataLoader<string, T[]>(async (parentIds) => {
    const rows = (await em.find(entity, { [foreignKey]: { $in: [...parentIds] } } as never, { orderBy: orderBy as never })) as T[];
    const groups = new Map<string, T[]>(parentIds.map((id) => [id, []]));
    for (const row of rows) groups.get((row as Record<string, unknown>)[foreignKey] as string)?.push(row);
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

export function createLoaders(em: EntityManager) {
  return {
    business: byIdLoader(em, Business),
    survey: plainByIdLoader(em, Survey),
    metric: plainByIdLoader(em, Metric),
    order: byIdLoader(em, Order),
    location: byIdLoader(em, Location),
    menuItem: byIdLoader(em, MenuItem),
    stepsBySurvey: byParentLoader(em, SurveyStep, 'survey', [{ position: 'asc' }, { id: 'asc' }]),
    itemsByOrder: entityByParentLoader(em, OrderItem, 'order', [{ position: 'asc' }, { id: 'asc' }]),
    submissionsByOrder: entityByParentLoader(em, Submission, 'order', [{ createdAt: 'desc' }, { id: 'desc' }]),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
