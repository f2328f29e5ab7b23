import type { EntityManager } from '@mikro-orm/postgresql';
import type { IdKind } from '../../shared/id.js';
import type { ListArgsValue, OrderByValue, Page } from '../list/list.args.js';
import { findPage } from '../list/list.query.js';
import type { RecordedResource } from './recorded-change.js';
import { findOwned } from './resource.js';

export interface OwnedResourceOptions<T, P> {
  /** The id's kind (`metric`): an id of another kind is a 404 without a look. */
  kind: IdKind;
  /** How a 404 names it: "Reply template". */
  label: string;
  present: (row: T) => P;
}

/**
 * The reads every plain business-owned resource has, written once: `find` one of the business's (a 404 otherwise;
 * `lock` takes FOR UPDATE), `list` a page of them, and `recorded`, the resource as the update and delete recipe
 * (recorded-change.ts) takes it.
 */
export function ownedResource<T extends object, P>(entity: new () => T, options: OwnedResourceOptions<T, P>) {
  const { kind, label, present } = options;
  // The resource name its events carry is its kind in lower case: `alertRule` records alertrule.updated.
  const resource = kind.toLowerCase();
  const find = (em: EntityManager, business: string, id: string, lock = false) => findOwned<T>(em, entity, { kind, label, business, id, lock });
  const list = (em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>): Promise<Page<P>> =>
    findPage<T, P>(em, entity, { scope: { business }, args, present });
  const recorded: RecordedResource<T, P> = { resource, find, present };
  return { find, list, recorded };
}
