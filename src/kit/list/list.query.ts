import type { EntityManager } from '@mikro-orm/postgresql';
import { pageOf, type Condition, type OrderBy } from '../db/entity.rows.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
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
 * `{createdAt: {gte: t}, name: {contains: 'x'}}` -> conditions on entity properties, each with its SQL comparison
 * (list.args.ts's COMPARISONS). The GraphQL input types are the whitelist (an unknown field or operator never reaches
 * here); `columns` renames a public field to its entity property.
 */
export function whereToConditions(where: object | null | undefined, columns: Record<string, string> = {}): Condition[] {
  const conditions: Condition[] = [];
  for (const [field, ops] of Object.entries(where ?? {})) {
    if (ops == null) continue;
    const property = columns[field] ?? field;
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (op === 'in' && Array.isArray(value) && value.length > MAX_IN_VALUES) {
        throw AppError.validation([{ field: `where.${field}.in`, message: `at most ${MAX_IN_VALUES} values` }]);
      }
      if (op === 'contains') conditions.push({ property, op: 'ilike', value: `%${escapeLike(String(value))}%` });
      else if (Object.hasOwn(COMPARISONS, op)) conditions.push({ property, op: COMPARISONS[op as keyof typeof COMPARISONS], value });
    }
  }
  return conditions;
}

/** Whitelisted sorts, then id in the direction of the last sort so that equal values page deterministically. */
export function orderByToSql(
  orderBy: OrderByValue[] | null | undefined,
  columns: Record<string, string> = {},
  defaultOrder: OrderByValue[] = [{ field: 'createdAt', order: 'desc' as never }],
) {
  const sorts = orderBy?.length ? orderBy : defaultOrder;
  const result: OrderBy = [];
  for (const { field, order } of sorts) {
    const property = columns[field] ?? field;
    if (!result.some((r) => property in r)) result.push({ [property]: order });
  }
  if (!result.some((r) => 'id' in r)) result.push({ id: sorts[sorts.length - 1].order as 'asc' | 'desc' });
  return result;
}

export interface ListOptions<T> {
  /** Conditions the caller may not lift, by property: the business, the parent. */
  scope: Record<string, unknown>;
  args: ListArgsValue<object, OrderByValue>;
  /** Public field name -> entity property, where they differ. */
  columns?: Record<string, string>;
  present: (row: T) => unknown;
  /** When the caller gives no orderBy; the default is createdAt desc. */
  defaultOrder?: OrderByValue[];
  /** Conditions the module writes itself, for a `where` field that is not a comparison (left out of `args.where`). */
  conditions?: readonly Condition[];
}

/**
 * One page of a list and its total, in one statement whatever the page size (entity.rows.ts's pageOf), read on `em`
 * (inside its transaction when it has one). The scope's conditions always hold beside the caller's: a condition on the
 * same field narrows, never widens.
 */
export async function findPage<T extends object, P>(em: EntityManager, entity: new () => T, options: ListOptions<T>): Promise<Page<P>> {
  const { page, pageSize } = options.args;
  checkPaging(page, pageSize);
  // A scope entry left undefined (an optional parent) is no condition.
  const scope = Object.entries(options.scope).flatMap(([property, value]): Condition[] => (value === undefined ? [] : [{ property, op: '=', value }]));
  const conditions = [...scope, ...whereToConditions(options.args.where, options.columns), ...(options.conditions ?? [])];
  const orderBy = orderByToSql(options.args.orderBy, options.columns, options.defaultOrder);
  const { rows, total } = await pageOf(em, entity, { conditions, orderBy, limit: pageSize, offset: page * pageSize });
  return { data: rows.map((row) => options.present(row) as P), page, pageSize, total, hasMore: (page + 1) * pageSize < total };
}
