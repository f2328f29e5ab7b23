import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { rowsWhere, type OrderBy } from '../db/entity.rows.js';

type EntityClass<T> = new () => T;

export interface ChildLoaderOptions {
  /** The order of each parent's children. */
  orderBy: OrderBy;
  /** The properties to read (see propertiesFor), besides the id, the key and the order's; all when absent. */
  properties?: readonly string[];
}

/** The rows of `ids` in one SELECT ... WHERE id IN (...), by id. */
async function rowsById<T extends { id: string }>(em: EntityManager, entity: EntityClass<T>, ids: readonly string[]): Promise<Map<string, T>> {
  const rows = ids.length ? await rowsWhere(em, entity, 'id', ids) : [];
  return new Map(rows.map((row) => [row.id, row]));
}

/** One SELECT ... WHERE id IN (...) per batch, answers in the order of the keys (null for unknown ids). */
function byIdLoader<T extends { id: string }>(em: EntityManager, entity: EntityClass<T>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const byId = await rowsById(em, entity, ids);
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/**
 * Rows by id for many id lists (a survey's step metrics) in one SELECT ... WHERE id IN (...). Every load of a batch
 * is answered with the batch's one Map, which holds each of its ids that names a row: the caller looks its own ids up
 * in its own order, so the rows are matched to ids once, not once here and again by the caller. One load per list,
 * not per id: DataLoader answers every key, even one it holds, with a promise of its own.
 */
function byIdsLoader<T extends { id: string }>(em: EntityManager, entity: EntityClass<T>) {
  return new DataLoader<readonly string[], ReadonlyMap<string, T>, string>(
    async (lists) => {
      const byId = await rowsById(em, entity, [...new Set(lists.flat())]);
      return lists.map(() => byId);
    },
    // Lists are not cached: two lists alike are rare, and a cache key is a join of every list.
    { cache: false },
  );
}

/** Children of many parents in one SELECT ... WHERE <fk> IN (...), grouped per parent in `orderBy` order. */
function byForeignKeyLoader<T extends object>(em: EntityManager, entity: EntityClass<T>, foreignKey: string, { orderBy, properties }: ChildLoaderOptions) {
  return new DataLoader<string, T[]>(async (parentIds) => {
    const rows = await rowsWhere(em, entity, foreignKey, parentIds, orderBy, properties);
    const groups = new Map<string, T[]>(parentIds.map((id) => [id, []]));
    // Relations are mapped to their primary key (mapToPk): a row's foreign key is its parent's id.
    for (const row of rows) groups.get((row as Record<string, unknown>)[foreignKey] as string)?.push(row);
    return parentIds.map((id) => groups.get(id) ?? []);
  });
}

/** Arrays as text, by identity: a page's parents (50 surveys) ask with the same orderBy and properties arrays. */
const texts = new WeakMap<object, string>();
function textOf(value: object): string {
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}

/**
 * The request's DataLoaders, made on first use and kept for the request: a module asks for "Survey by id" or
 * "SurveyStep by `survey`" and every resolver asking the same question in this request shares one batch. Keyed by
 * entity, foreign key and options, so the kit names no module's entity.
 */
export class Loaders {
  private readonly loaders = new Map<EntityClass<unknown>, Map<string, DataLoader<never, unknown, unknown>>>();

  constructor(private readonly em: EntityManager) {}

  byId<T extends { id: string }>(entity: EntityClass<T>): DataLoader<string, T | null> {
    return this.find(entity, 'id') ?? this.keep(entity, 'id', byIdLoader(this.em, entity));
  }

  byIds<T extends { id: string }>(entity: EntityClass<T>): DataLoader<readonly string[], ReadonlyMap<string, T>, string> {
    return this.find(entity, 'ids') ?? this.keep(entity, 'ids', byIdsLoader(this.em, entity));
  }

  byForeignKey<T extends object>(entity: EntityClass<T>, foreignKey: keyof T & string, options: ChildLoaderOptions): DataLoader<string, T[]> {
    const key = `${foreignKey}:${textOf(options.orderBy)}:${options.properties ? textOf(options.properties) : '*'}`;
    return this.find(entity, key) ?? this.keep(entity, key, byForeignKeyLoader(this.em, entity, foreignKey, options));
  }

  /** Lets go of every loader and what it loaded, once the request's answer is made (see src/graphql/apollo.ts). */
  clear(): void {
    this.loaders.clear();
  }

  // Looked up before anything is made: a page asks for the same loader once per row (250 steps, 50 surveys).
  private find<L>(entity: EntityClass<unknown>, key: string): L | undefined {
    return this.loaders.get(entity)?.get(key) as L | undefined;
  }

  private keep<L extends DataLoader<never, unknown, unknown>>(entity: EntityClass<unknown>, key: string, loader: L): L {
    let forEntity = this.loaders.get(entity);
    if (!forEntity) this.loaders.set(entity, (forEntity = new Map()));
    forEntity.set(key, loader);
    return loader;
  }
}
