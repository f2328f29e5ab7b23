import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FindOneOptions } from '@mikro-orm/core';
import { AppError, type ErrorDetail } from '../shared/errors.js';
import { isId, type IdKind } from '../shared/id.js';
import type { GraphQLContext } from './context.js';
import { presentBusiness } from '../modules/business/business.resolver.js';
import type { BusinessType } from '../modules/business/business.type.js';

/**
 * One object of one business. A malformed id, an id of another kind and another business's object all answer the
 * same NOT_FOUND: nothing tells a caller that an id exists elsewhere.
 */
export async function findOwned<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  kind: IdKind,
  label: string,
  business: string,
  id: unknown,
  options: FindOneOptions<T> = {},
  extra: Record<string, unknown> = {},
): Promise<T> {
  const found = isId(kind, id) ? await em.findOne(entity, { id, business, ...extra } as never, options as never) : null;
  if (!found) throw AppError.notFound(label, typeof id === 'string' ? id : undefined);
  return found as T;
}

export async function loadBusiness(ctx: GraphQLContext, id: string): Promise<BusinessType> {
  const business = await ctx.loaders.business.load(id);
  if (!business) throw AppError.notFound('Business', id);
  return presentBusiness(business);
}

/** Collects per-field problems so one answer names every bad field, not just the first. */
export class Checks {
  readonly details: ErrorDetail[] = [];

  fail(field: string, message: string) {
    this.details.push({ field, message });
  }

  text(field: string, value: unknown, opts: { required?: boolean; max?: number } = {}): void {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, 'is required');
      return;
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    if (opts.required && !value.trim()) return this.fail(field, 'must not be empty');
    if (opts.max && value.length > opts.max) this.fail(field, `must be at most ${opts.max} characters`);
  }

  throwIfAny() {
    if (this.details.length) throw AppError.validation(this.details);
  }
}

/** Keys whose value is not undefined: an update takes any subset of fields. */
export function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}
