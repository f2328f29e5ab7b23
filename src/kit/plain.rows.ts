import pg from 'pg';
import { ReferenceKind, type EntityManager } from '@mikro-orm/core';
import { loggedQuery } from './orm.pool.js';

type EntityClass<T> = new () => T;

const TIMESTAMPTZ = 1184;
const parseTimestamptzSlowly = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;

/**
 * PostgreSQL's text form of a timestamptz in a UTC session ("2026-11-25 12:34:56.789123+00") as the instant, to the
 * millisecond as node-postgres gives it: rewritten as ISO 8601 for Date.parse, which is several times faster than
 * the general parser's regular expression (a page of 300 rows holds 600 timestamps). Anything else (another offset,
 * BC, infinity) goes to the general parser.
 */
export function parseTimestamptz(text: string): Date {
  if (text[10] === ' ' && text.endsWith('+00')) {
    const time = text.slice(11, -3);
    const dot = time.indexOf('.');
    const ms = Date.parse(`${text.slice(0, 10)}T${dot < 0 ? time : time.slice(0, dot + 4)}Z`);
    if (!Number.isNaN(ms)) return new Date(ms);
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

/**
 * `select <columns> from <table> where <key> = any($1) [order by ...]` for `entity`, from the ORM's metadata: its own
 * columns, each aliased to its property name (`"survey_id" as "survey"`), so rows need no mapping.
 */
function plainSelect(em: EntityManager, entity: EntityClass<unknown>, key: string, orderBy: Record<string, 'asc' | 'desc'>[]): string {
  const meta = em.getMetadata().get(entity);
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const columns = new Map<string, string>();
  for (const prop of meta.props) {
    const stored = prop.persist !== false && !prop.formula && prop.fieldNames?.length === 1;
    if (stored && (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE)) columns.set(prop.name, prop.fieldNames[0]);
  }
  const column = (property: string) => {
    const name = columns.get(property);
    if (!name) throw new Error(`${meta.className} has no column for ${property}`);
    return quote(name);
  };
  const select = [...columns].map(([property, name]) => `${quote(name)} as ${quote(property)}`).join(', ');
  const order = orderBy.flatMap((o) => Object.entries(o).map(([property, dir]) => `${column(property)} ${dir === 'desc' ? 'desc' : 'asc'}`));
  return `select ${select} from ${quote(meta.tableName)} where ${column(key)} = any($1)${order.length ? ` order by ${order.join(', ')}` : ''}`;
}

/** SQL text by entity, key and order: built once per process. */
const statements = new Map<string, string>();

/**
 * The rows of `entity` whose `key` property is one of `values`, in `orderBy` order (property names), as plain
 * objects of its properties: the request loaders' batches. The SQL is built once from the ORM's metadata and runs on
 * the ORM's own `pg` pool, so a batch costs its round trip and little else (building the same query through the
 * query builder each time, then mapping every row to property names and converting its timestamps, cost more than
 * the database did). For committed data only: the pool's connections are not a request's transaction. Only for
 * entities whose columns need no conversion of the ORM's own (no decimals, no custom types).
 */
export async function plainRowsWhere<T>(
  em: EntityManager,
  entity: EntityClass<T>,
  key: string,
  values: readonly string[],
  orderBy: Record<string, 'asc' | 'desc'>[] = [],
): Promise<T[]> {
  const id = `${entity.name}\n${key}\n${JSON.stringify(orderBy)}`;
  let text = statements.get(id);
  if (!text) statements.set(id, (text = plainSelect(em, entity, key, orderBy)));
  return (await loggedQuery(em, { text, values: [values], types: PARSED })).rows as T[];
}
