import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, type EntityName } from '@mikro-orm/core';
import { AppError } from '../../shared/errors.js';
import { isId, type IdKind } from '../../shared/id.js';

export interface OwnedLookup {
  /** The id's kind: an id with another prefix is not looked up at all. */
  kind: IdKind;
  /** How a 404 names the object: "Survey step". */
  label: string;
  business: string;
  id: unknown;
  /** Lock the row (FOR UPDATE) until the transaction ends: for the writers that change or delete it. */
  lock?: boolean;
  /** More conditions the object must meet, e.g. its parent: `{ survey }`. */
  where?: Record<string, unknown>;
}

/**
 * One object of one business. A malformed id, an id of another kind and another business's object all answer the
 * same NOT_FOUND: nothing tells a caller that an id exists elsewhere.
 */
export async function findOwned<T extends object>(em: EntityManager, entity: EntityName<T>, lookup: OwnedLookup): Promise<T> {
  const { kind, label, business, id, lock = false, where = {} } = lookup;
  const options = lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
  const found = isId(kind, id) ? await em.findOne(entity, { id, business, ...where } as never, options as never) : null;
  if (!found) throw AppError.notFound(label, typeof id === 'string' ? id : undefined);
  return found as T;
}

/** Keys whose value is not undefined: an update takes any subset of fields. */
export function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}
