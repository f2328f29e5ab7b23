import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Business } from '../modules/business/business.entity.js';

/** One SELECT ... WHERE id IN (...) per batch, answers in the order of the keys (null for unknown ids). */
export function byIdLoader<T extends { id: string }>(em: EntityManager, entity: new () => T) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = (await em.find(entity, { id: { $in: [...ids] } } as never)) as T[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

export function createLoaders(em: EntityManager) {
  return {
    business: byIdLoader(em, Business),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
