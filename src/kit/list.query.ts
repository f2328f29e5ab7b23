import type { EntityManager } from '@mikro-orm/postgresql';
import { plainPage } from './plain.rows.js';
import { AppError, type ErrorDetail } from '../shared/errors.js';
import { COMPARISONS, type ListArgsValue, type OrderByValue, type Page } from './list.args.js';
import { MAX_IN_VALUES, MAX_PAGE_SIZE } from './list.limits.js';

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export function checkPaging(page: number, pageSize: number) {
  const details: ErrorDetail[] = [];
  if (!Number.isInteger(page) || page < 0) details.push({ field: 'page', message: 'must be an integer from 0' });
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    details.push({ field: 'pageSize', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  }
  if (details.length) throw AppError.validation(details);
}

/**
 * `{createdAt: {gte: t}, name: {contains: 'x'}}` -> a Filter by property, which plainPage turns into SQL. The GraphQL
 * input types are the whitelist (an unknown field or operator never reaches here); `columns` renames a public field
 * to its entity property.
 */
export function whereToFilter(where: object | null | undefined, columns: Record<string, string> = {}): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const [field, ops] of Object.entries(where ?? {})) {
    if (ops == null) continue;
    const condition: Record<string, unknown> = {};
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (op === 'in' && Array.isArray(value) && value.length > MAX_IN_VALUES) {
        throw AppError.validation([{ field: `where.${field}.in`, message: `at most ${MAX_IN_VALUES} values` }]);
      }
      if (op === 'contains') condition.$ilike = `%${escapeLike(String(value))}%`;
      else if (Object.hasOwn(COMPARISONS, op)) condition[COMPARISONS[op as keyof typeof COMPARISONS]] = value;
    }
    if (Object.keys(condition).length) {
      const property = columns[field] ?? field;
      // Several conditions on one field AND together; keep any already there (e.g. a parent scope).
      filter[property] = { ...((filter[property] as object) ?? {}), ...condition };
    }
  }
  return filter;
}

/** Whitelisted sorts, then id in the direction of the last sort so that equal values page deterministically. */
export function orderByToSql(
  orderBy: OrderByValue[] | null | undefined,
  columns: Record<string, string> = {},
  defaultOrder: OrderByValue[] = [{ field: 'createdAt', order: 'desc' as never }],
) {
  const sorts = orderBy?.length ? orderBy : defaultOrder;
  const result: Record<string, 'asc' | 'desc'>[] = [];
  for (const { field, order } of sorts) {
    const property = columns[field] ?? field;
    if (!result.some((r) => property in r)) result.push({ [property]: order });
  }
  if (!result.some((r) => 'id' in r)) result.push({ id: sorts[sorts.length - 1].order as 'asc' | 'desc' });
  return result;
}

export interface ListOptions<T> {
  /** Conditions the caller may not lift: the business, the parent. */
  scope: Record<string, unknown>;
  args: ListArgsValue<object, OrderByValue>;
  /** Public field name -> entity property, where they differ. */
  columns?: Record<string, string>;
  present: (row: T) => unknown;
  /** When the caller gives no orderBy; DESIGN.md's default is createdAt desc. */
  defaultOrder?: OrderByValue[];
  /**
   * Rows are presented from plain property objects (see loaders.ts: hydrating entities costs more than the rest of
   * a page); entities with custom-typed columns (decimals) set this to go through the ORM's conversion.
   */
  hydrate?: boolean;
}

/** One page of a list and its total (plainPage: one statement whatever the page size, a list costs one round trip). */
export async function findPage<T extends object, P>(em: EntityManager, entity: new () => T, options: ListOptions<T>): Promise<Page<P>> {
  const { page, pageSize } = options.args;
  checkPaging(page, pageSize);
  const where = whereToFilter(options.args.where, options.columns);
  // The scope must never be widened by a caller's condition on the same field: both hold.
  const filter = Object.keys(where).length ? { $and: [options.scope, where] } : options.scope;
  const orderBy = orderByToSql(options.args.orderBy, options.columns, options.defaultOrder);
  const { rows, total } = await plainPage(em, entity, { filter, orderBy, limit: pageSize, offset: page * pageSize, raw: options.hydrate });
  const data = rows.map((row) => options.present((options.hydrate ? em.map(entity, row as never) : row) as T) as P);
  return { data, page, pageSize, total, hasMore: (page + 1) * pageSize < total };
}
