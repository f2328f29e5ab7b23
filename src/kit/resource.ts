import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FindOneOptions } from '@mikro-orm/core';
import { AppError } from '../shared/errors.js';
import { isId, type IdKind } from '../shared/id.js';

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

/** Keys whose value is not undefined: an update takes any subset of fields. */
export function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}
