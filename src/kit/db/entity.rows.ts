import pg from 'pg';
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { JsonType, ReferenceKind, type EntityManager, type EntityProperty } from '@mikro-orm/core';
import { db, runShaped } from './db.js';

type EntityClass<T> = new () => T;

const parseTimestamptzSlowly = pg.types.getTypeParser(1184) as (text: string) => Date;
const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const twoDigits = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/**
 * PostgreSQL's text form of a timestamptz in a UTC session ("2026-11-25 12:34:56.789123+00") as the instant, to the
 * millisecond as node-postgres gives it, read at the fixed positions of that form (a page of rows holds two
 * timestamps a row). Anything else (another offset, BC, infinity, a year below 100) goes to node-postgres's parser.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (n >= 22 && text.charCodeAt(10) === 32 && text.endsWith('+00')) {
    const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
    // ".f", ".ff" or ".ffffff": milliseconds are the first three digits, as node-postgres truncates.
    const fraction = text.charCodeAt(19) === 46 ? n - 23 : 0;
    const ms = fraction ? digit(text, 20) * 100 + (fraction > 1 ? digit(text, 21) * 10 : 0) + (fraction > 2 ? digit(text, 22) : 0) : 0;
    const at = Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), ms);
    // Date.UTC reads years 0 to 99 as 1900 to 1999.
    if (year >= 100 && !Number.isNaN(at)) return new Date(at);
  }
  return parseTimestamptzSlowly(text);
}

/** One stored property: its column, and how its value is read when the database's value is not the property's. */
interface StoredColumn {
  column: string;
  read?: (value: unknown) => unknown;
}

/** An entity's table as plain rows read it: every stored property by name, decided once from the ORM's metadata. */
export interface EntityTable {
  name: string;
  table: string;
  columns: ReadonlyMap<string, StoredColumn>;
  /** What a read without a selection carries: lazy properties are left out, as the ORM's reads leave them. */
  eager: readonly string[];
}

/**
 * How a property's value is read, as the ORM reads it: timestamps (kept as text by the ORM's pool) as Dates, custom
 * types (decimals, JSON) by their own conversion; everything else (text, numbers, booleans, keys) as it comes.
 */
function readerOf(em: EntityManager, prop: EntityProperty): StoredColumn['read'] {
  if (prop.runtimeType === 'Date') return (value) => (typeof value === 'string' ? parseTimestamptz(value) : value);
  const type = prop.customType;
  const platform = em.getPlatform();
  // node-postgres parses json and jsonb itself, and the ORM's JsonType then passes the value on as it is.
  if (!type || (type instanceof JsonType && platform.convertsJsonAutomatically())) return undefined;
  return (value) => type.convertToJSValue(value, platform);
}

const tables = new Map<EntityClass<unknown>, EntityTable>();

/** The entity's stored properties (scalars and many-to-one keys, which the entities map to their primary key). */
export function tableOf(em: EntityManager, entity: EntityClass<unknown>): EntityTable {
  let table = tables.get(entity);
  if (!table) {
    const meta = em.getMetadata().get(entity);
    const columns = new Map<string, StoredColumn>();
    for (const prop of meta.props) {
      const stored = prop.persist !== false && !prop.formula && prop.fieldNames?.length === 1;
      if (stored && (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE)) {
        columns.set(prop.name, { column: prop.fieldNames[0], read: readerOf(em, prop) });
      }
    }
    const eager = [...columns.keys()].filter((property) => !meta.properties[property as never]?.lazy);
    tables.set(entity, (table = { name: meta.className, table: meta.tableName, columns, eager }));
  }
  return table;
}

function columnOf(table: EntityTable, property: string): string {
  const stored = table.columns.get(property);
  // The properties come from the service's own code (scopes, whitelisted filters and sorts): a miss is a bug.
  if (!stored) throw new Error(`${table.name} has no column for ${property}`);
  return stored.column;
}

/** Each row's values read as the ORM reads them (see readerOf), in place: the rows are the statement's own. */
function readRows<T>(table: EntityTable, properties: readonly string[], rows: Record<string, unknown>[]): T[] {
  for (const property of properties) {
    const read = table.columns.get(property)?.read;
    if (!read) continue;
    for (const row of rows) {
      const value = row[property];
      if (value != null) row[property] = read(value);
    }
  }
  return rows as T[];
}

/**
 * A row of the entity's table as the database gives it (`select *`: keyed by column) as a plain object of its stored
 * properties, read as the ORM reads them: for a read that needs no managed entity (nothing of it is flushed).
 */
export function plainOfRow<T>(em: EntityManager, entity: EntityClass<T>, row: Record<string, unknown>): T {
  const plain: Record<string, unknown> = {};
  for (const [property, { column, read }] of tableOf(em, entity).columns) {
    const value = row[column];
    plain[property] = value != null && read ? read(value) : value;
  }
  return plain as T;
}

/** `query` ordered by `orderBy`'s properties. */
function orderedBy<Q extends { orderBy(ref: Expression<unknown>, dir: 'asc' | 'desc'): Q }>(table: EntityTable, query: Q, orderBy: OrderBy): Q {
  for (const order of orderBy) for (const [property, dir] of Object.entries(order)) query = query.orderBy(sql.ref(columnOf(table, property)), dir);
  return query;
}

/** `"column" as "property"` for each property: rows come out keyed as the entity is, with no mapping. */
const selections = (table: EntityTable, properties: readonly string[]) => properties.map((p) => sql.ref(columnOf(table, p)).as(p));

export type OrderBy = Record<string, 'asc' | 'desc'>[];

/** A list's conditions: each on one property, with a SQL comparison (`=`, `<`, `in`, `ilike`, ...) and its value. */
export type Condition =
  | { property: string; op: ComparisonOperator; value: unknown }
  /**
   * The property is one of a module's subquery's values (a filter its repository writes, such as the feedback list's
   * theme): `shape` names the subquery's text, which its parameters alone may vary.
   */
  | { property: string; op: 'in select'; value: { shape: string; query: RawBuilder<unknown> } };
type ComparisonOperator = '=' | '<>' | '>' | '>=' | '<' | '<=' | 'in' | 'ilike';

function conditionSql(table: EntityTable, condition: Condition): Expression<SqlBool> {
  const column = sql.ref(columnOf(table, condition.property));
  if (condition.op === 'in select') return sql<SqlBool>`${column} in (${condition.value.query})`;
  const { op, value } = condition;
  if (value === null) return op === '<>' ? sql<SqlBool>`${column} is not null` : sql<SqlBool>`${column} is null`;
  // An array parameter, not one parameter per value: one statement text whatever the list's length.
  if (op === 'in') return sql<SqlBool>`${column} = any(${value})`;
  return sql<SqlBool>`${column} ${sql.raw(op)} ${value}`;
}

/** The parameters a condition binds, in the order its text carries them. */
function parametersOf(em: EntityManager, condition: Condition): readonly unknown[] {
  if (condition.op === 'in select') return condition.value.query.compile(db(em)).parameters;
  return condition.value === null ? [] : [condition.value];
}

/** What a condition adds to its statement's shape: its property, operator and whatever else changes the text. */
function shapeOf(condition: Condition): string {
  if (condition.op === 'in select') return `${condition.property} in (${condition.value.shape})`;
  return `${condition.property} ${condition.op}${condition.value === null ? ' null' : ''}`;
}

/**
 * The rows of `entity` whose `key` property is one of `values`, in `orderBy` order, as plain objects of its
 * properties (only `properties` with the id, the key and the order's, when given): the request loaders' batches.
 * Read on `em`, inside its transaction when it has one.
 */
export async function rowsWhere<T>(
  em: EntityManager,
  entity: EntityClass<T>,
  key: string,
  values: readonly string[],
  orderBy: OrderBy = [],
  properties?: readonly string[],
): Promise<T[]> {
  const table = tableOf(em, entity);
  const wanted = properties ? [...new Set(['id', key, ...orderBy.flatMap((o) => Object.keys(o)), ...properties])] : table.eager;
  const shape = `${table.name}|${key}|${JSON.stringify(orderBy)}|${properties?.join() ?? '*'}`;
  const rows = await runShaped(
    em,
    shape,
    [values],
    () =>
      orderedBy(
        table,
        db(em)
          .selectFrom(table.table)
          .select(selections(table, wanted))
          .where(conditionSql(table, { property: key, op: 'in', value: values })),
        orderBy,
      ),
    // Every page runs its loaders' statements: prepared.
    { prepare: true },
  );
  return readRows<T>(table, wanted, rows);
}

export interface PageRead {
  conditions: readonly Condition[];
  orderBy: OrderBy;
  limit: number;
  offset: number;
}

/**
 * One page of `entity`'s rows and how many rows the conditions match, in one statement (`count(*) over ()` is
 * computed before LIMIT); only a page past the end, with no row to carry the count, costs a second statement.
 */
export async function pageOf<T>(
  em: EntityManager,
  entity: EntityClass<T>,
  { conditions, orderBy, limit, offset }: PageRead,
): Promise<{ rows: T[]; total: number }> {
  const table = tableOf(em, entity);
  const filtered = () => conditions.reduce((query, condition) => query.where(conditionSql(table, condition)), db(em).selectFrom(table.table));
  // A null comparison is written `is [not] null`, without a parameter.
  const values = conditions.flatMap((c) => parametersOf(em, c));
  const shape = `${table.name}|${conditions.map(shapeOf).join()}|${JSON.stringify(orderBy)}`;
  const rows = await runShaped(em, `page|${shape}`, [...values, limit, offset], () =>
    orderedBy(table, filtered().select([...selections(table, table.eager), sql<string>`count(*) over ()`.as('__total')]), orderBy)
      .limit(limit)
      .offset(offset),
  );
  let total: number;
  if (rows.length) total = Number(rows[0].__total);
  else if (offset === 0) total = 0;
  else total = Number((await runShaped(em, `count|${shape}`, values, () => filtered().select(sql<string>`count(*)`.as('total'))))[0].total);
  return { rows: readRows<T>(table, table.eager, rows), total };
}
