import pg from 'pg';
import { ReferenceKind, type EntityManager } from '@mikro-orm/core';
import { loggedQuery } from './orm.pool.js';

type EntityClass<T> = new () => T;

const TIMESTAMPTZ = 1184;
const parseTimestamptzSlowly = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const twoDigits = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/**
 * PostgreSQL's text form of a timestamptz in a UTC session ("2026-11-25 12:34:56.789123+00") as the instant, to the
 * millisecond as node-postgres gives it, read digit by digit at the fixed positions of that form: no intermediate
 * strings, about half the time of rewriting it for Date.parse, and a page of 1,000 rows holds 2,000 timestamps.
 * Anything else (another offset, BC, infinity, a year below 100 or above 9999) goes to the general parser.
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

/**
 * node-postgres's own parsers (json parsed, timestamps to Date), where the ORM's pool keeps timestamps as strings
 * for the ORM to convert row by row: rows read here come out as the ORM's plain rows do.
 */
const PARSED = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamptz : pg.types.getTypeParser(oid, format)),
};

/** The entity's own stored columns by property name (scalars and many-to-one keys): built once per entity. */
const storedByEntity = new Map<EntityClass<unknown>, ReadonlyMap<string, string>>();

/**
 * The properties of `entity` that are columns of its table, each with its column: what plain rows can carry. Also
 * what a page's selection can be read from (propertiesFor).
 */
export function storedColumns(em: EntityManager, entity: EntityClass<unknown>): ReadonlyMap<string, string> {
  let columns = storedByEntity.get(entity);
  if (!columns) {
    const found = new Map<string, string>();
    for (const prop of em.getMetadata().get(entity).props) {
      const stored = prop.persist !== false && !prop.formula && prop.fieldNames?.length === 1;
      if (stored && (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE)) found.set(prop.name, prop.fieldNames[0]);
    }
    storedByEntity.set(entity, (columns = found));
  }
  return columns;
}

/** By entity: the stored properties a read without a selection carries; lazy ones are left out, as the ORM's reads leave them. */
const eagerByEntity = new Map<EntityClass<unknown>, readonly string[]>();

function eagerProperties(em: EntityManager, entity: EntityClass<unknown>): readonly string[] {
  let eager = eagerByEntity.get(entity);
  if (!eager) {
    const meta = em.getMetadata().get(entity);
    eagerByEntity.set(entity, (eager = [...storedColumns(em, entity).keys()].filter((property) => !meta.properties[property as never]?.lazy)));
  }
  return eager;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `property` as its quoted column of `entity`: a property without one is a programming error, never a caller's. */
function columnOf(em: EntityManager, entity: EntityClass<unknown>, property: string): string {
  const name = storedColumns(em, entity).get(property);
  if (!name) throw new Error(`${em.getMetadata().get(entity).className} has no column for ${property}`);
  return quote(name);
}

/** `<column> asc, <column> desc` of an order given as property names. */
function orderSql(em: EntityManager, entity: EntityClass<unknown>, orderBy: Record<string, 'asc' | 'desc'>[]): string {
  const order = orderBy.flatMap((o) => Object.entries(o).map(([property, dir]) => `${columnOf(em, entity, property)} ${dir === 'desc' ? 'desc' : 'asc'}`));
  return order.length ? ` order by ${order.join(', ')}` : '';
}

/** The select list of `properties`: each column aliased to its property (`"survey_id" as "survey"`), or bare for `raw` rows. */
function selectList(em: EntityManager, entity: EntityClass<unknown>, properties: Iterable<string>, raw = false): string {
  return [...properties].map((property) => (raw ? columnOf(em, entity, property) : `${columnOf(em, entity, property)} as ${quote(property)}`)).join(', ');
}

/**
 * `select <columns> from <table> where <key> = any($1) [order by ...]` for `entity`, from the ORM's metadata: its own
 * columns, each aliased to its property name (`"survey_id" as "survey"`), so rows need no mapping.
 */
function plainSelect(em: EntityManager, entity: EntityClass<unknown>, key: string, orderBy: Record<string, 'asc' | 'desc'>[], properties?: readonly string[]): string {
  // Only `properties` when given (a page's selection), with the id, the key and the order's properties.
  const wanted = properties ? new Set(['id', key, ...orderBy.flatMap((o) => Object.keys(o)), ...properties]) : eagerProperties(em, entity);
  const table = quote(em.getMetadata().get(entity).tableName);
  return `select ${selectList(em, entity, wanted)} from ${table} where ${columnOf(em, entity, key)} = any($1)${orderSql(em, entity, orderBy)}`;
}

/** SQL text by entity, key and order: built once per process. */
const statements = new Map<string, string>();

/**
 * The rows of `entity` whose `key` property is one of `values`, in `orderBy` order (property names), as plain
 * objects of its properties (only `properties`, the id, the key and the order's, when given): the request loaders'
 * batches. The SQL is built once from the ORM's metadata and runs on the ORM's own `pg` pool, so a batch costs its
 * round trip and little else (building the same query through the query builder each time, then mapping every row
 * to property names and converting its timestamps, cost more than the database did). For committed data only: the
 * pool's connections are not a request's transaction. Only for entities whose columns need no conversion of the
 * ORM's own (no decimals, no custom types).
 */
export async function plainRowsWhere<T>(
  em: EntityManager,
  entity: EntityClass<T>,
  key: string,
  values: readonly string[],
  orderBy: Record<string, 'asc' | 'desc'>[] = [],
  properties?: readonly string[],
): Promise<T[]> {
  const id = `${entity.name}\n${key}\n${JSON.stringify(orderBy)}\n${properties?.join(',') ?? '*'}`;
  let text = statements.get(id);
  if (!text) statements.set(id, (text = plainSelect(em, entity, key, orderBy, properties)));
  return (await plainQuery(em, text, [values])) as T[];
}

/** By a result's column names, in order: the function that makes one row's object from its values. */
const rowMakers = new Map<string, (values: unknown[]) => object>();

/**
 * The rows of a statement of plain reads, as objects keyed by column name with node-postgres's own value parsers (see
 * PARSED): what node-postgres's object rows hold. They are read as arrays (`rowMode: 'array'`) and made objects by one
 * function per statement shape that names every key in a literal. node-postgres fills each object row key by key from
 * a variable name; one pool serves every statement of the service, so that store sees dozens of shapes and takes V8's
 * generic path for each of a page's 1,800 values (its parseRow was 5% of the page's CPU, three times the floor's for
 * the same rows). Keys come from the service's own statements (aliases of the ORM's columns), so there are few of them.
 */
async function plainQuery(em: EntityManager, text: string, values: unknown[]): Promise<object[]> {
  const result = await loggedQuery<unknown[]>(em, { text, values, types: PARSED, rowMode: 'array' });
  const names = result.fields.map((field) => field.name);
  const key = names.join('\0');
  let make = rowMakers.get(key);
  if (!make) {
    const entries = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
    // eslint-disable-next-line no-new-func -- the names are the statement's own column aliases, quoted as JSON strings
    rowMakers.set(key, (make = new Function('v', `return { ${entries} };`) as (values: unknown[]) => object));
  }
  return result.rows.map(make);
}

/**
 * A list's conditions on `entity` by property: a value (equality, as a scope gives it), or comparisons as
 * whereToFilter gives them (`{createdAt: {$gte: t}}`), and `$and` of such filters.
 */
export type Filter = { $and?: Filter[] } & Record<string, unknown>;

const COMPARISONS: Record<string, string> = { $eq: '=', $ne: '<>', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=', $ilike: 'ilike' };

const isComparisons = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && Object.keys(value).every((k) => k.startsWith('$'));

/** `filter` as SQL conditions ANDed, its values appended to `values` as parameters; a null equality is IS [NOT] NULL. */
function whereSql(em: EntityManager, entity: EntityClass<unknown>, filter: Filter, values: unknown[]): string[] {
  const conditions: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      for (const part of value as Filter[]) conditions.push(...whereSql(em, entity, part, values));
      continue;
    }
    const column = columnOf(em, entity, key);
    for (const [op, operand] of Object.entries(isComparisons(value) ? value : { $eq: value })) {
      if (operand === undefined) continue;
      if (op === '$in') {
        values.push(operand);
        conditions.push(`${column} = any($${values.length})`);
      } else if (operand === null && (op === '$eq' || op === '$ne')) {
        conditions.push(`${column} is ${op === '$ne' ? 'not ' : ''}null`);
      } else if (Object.hasOwn(COMPARISONS, op)) {
        values.push(operand);
        conditions.push(`${column} ${COMPARISONS[op]} $${values.length}`);
      } else {
        throw new Error(`no SQL for the filter operator ${op}`);
      }
    }
  }
  return conditions;
}

export interface PageRead {
  filter: Filter;
  /** Property names, as orderByToSql gives them. */
  orderBy: Record<string, 'asc' | 'desc'>[];
  limit: number;
  offset: number;
  /**
   * Rows keyed by column with the ORM's own value conversions still to do (for `em.map`: entities with custom types);
   * otherwise plain objects of the entity's properties, as plainRowsWhere gives them.
   */
  raw?: boolean;
}

/**
 * One page of `entity`'s rows and how many rows `filter` matches, in one statement (`count(*) over ()` is computed
 * before LIMIT); only a page past the end, with no row to carry the count, costs a second statement. SQL built from
 * the ORM's metadata and run on its pool as plainRowsWhere does: building it through the query builder, then mapping
 * every row, cost a tenth of a three-level page's CPU. For committed data only (see plainRowsWhere).
 */
export async function plainPage<T>(em: EntityManager, entity: EntityClass<T>, { filter, orderBy, limit, offset, raw = false }: PageRead): Promise<{ rows: T[]; total: number }> {
  const values: unknown[] = [];
  const conditions = whereSql(em, entity, filter, values);
  const from = `from ${quote(em.getMetadata().get(entity).tableName)}${conditions.length ? ` where ${conditions.join(' and ')}` : ''}`;
  values.push(limit, offset);
  const text = `select ${selectList(em, entity, eagerProperties(em, entity), raw)}, count(*) over () as "__total" ${from}${orderSql(em, entity, orderBy)} limit $${values.length - 1} offset $${values.length}`;
  const rows = (raw ? (await loggedQuery(em, { text, values })).rows : await plainQuery(em, text, values)) as Array<T & { __total?: string }>;
  let total: number;
  if (rows.length) total = Number(rows[0].__total);
  else if (offset === 0) total = 0;
  else total = Number((await loggedQuery(em, { text: `select count(*) as "total" ${from}`, values: values.slice(0, -2) })).rows[0].total);
  // Plain rows keep the column (presenters name the fields they show): deleting a property turns an object into a
  // dictionary, slower to read and larger. The ORM's em.map is given only its own columns.
  if (raw) for (const row of rows) delete row.__total;
  return { rows, total };
}
