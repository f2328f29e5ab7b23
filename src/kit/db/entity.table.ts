import type { SnakeCase } from '@mikro-orm/sql';
import type { Generated } from 'kysely';

type Stored<E, K extends keyof E> = E[K] extends (...args: never[]) => unknown ? never : K;

/**
 * A Kysely table type read off an entity class, so that a repository's typed statements name the columns the entity
 * declares instead of describing them again. MikroORM cannot infer it for decorated classes (`em.getKysely()` types
 * them `unknown`), so this follows the ORM's naming: properties snake_cased, and `Refs` (many-to-one relations mapped
 * to their key) as `<property>_id`. A property the entity leaves optional and non-nullable has a database default.
 */
export type TableOf<E, Refs extends keyof E = never> = {
  -readonly [K in keyof E as K extends string
    ? Stored<E, K> extends never
      ? never
      : K extends Refs
        ? `${SnakeCase<K>}_id`
        : SnakeCase<K>
    : never]-?: {} extends Pick<E, K> ? (null extends E[K] ? Exclude<E[K], undefined> : Generated<Exclude<E[K], undefined>>) : E[K];
};

/** A record of an entity's properties as its table's row: keys snake_cased, `Refs` as `<property>_id`. */
export type RowOf<T, Refs extends keyof T = never> = {
  [K in keyof T as K extends string ? (K extends Refs ? `${SnakeCase<K>}_id` : SnakeCase<K>) : never]: T[K];
};

const columns = new Map<string, string>();
const columnOf = (property: string) => {
  let column = columns.get(property);
  if (column === undefined) columns.set(property, (column = property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
  return column;
};

/** The row of `record` (the ORM's underscore naming), for a typed insert: the columns stay the entity's. */
export function rowOf<T extends object, Refs extends keyof T & string = never>(record: T, refs: readonly Refs[] = []): RowOf<T, Refs> {
  const row: Record<string, unknown> = {};
  for (const [property, value] of Object.entries(record))
    row[(refs as readonly string[]).includes(property) ? `${columnOf(property)}_id` : columnOf(property)] = value;
  return row as RowOf<T, Refs>;
}
