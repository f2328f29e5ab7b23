import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from './event.service.js';

/**
 * The recipe every update and delete of a business's object follows, written once: in one transaction, find and
 * lock the object, check and apply the change, present it, record `<resource>.updated|deleted` with it. It lives
 * beside recordEvent, not in the kit, because the kit may not import a module and every writer already imports this one.
 */
export interface RecordedResource<T, P> {
  /** The resource name its events carry: 'survey' records survey.updated and survey.deleted. */
  resource: string;
  /** Finds the business's object in the transaction (404 when it is not theirs); `lock` asks for FOR UPDATE. */
  find: (tx: EntityManager, business: string, id: string, lock: boolean) => Promise<T>;
  present: (row: T) => P;
  /** The event's object when it is not the answer. */
  eventObject?: (row: T) => object;
}

/** `apply` checks the input (throwing rolls everything back) and assigns it to the locked object. */
export function updateRecorded<T extends { updatedAt: Date }, P extends object>(
  em: EntityManager,
  recorded: RecordedResource<T, P>,
  business: string,
  id: string,
  apply: (row: T, tx: EntityManager) => unknown,
): Promise<P> {
  return em.transactional(async (tx) => {
    const row = await recorded.find(tx, business, id, true);
    await apply(row, tx);
    // The ORM stamps updatedAt (onUpdate) only at flush, after the answer and the event are presented from the
    // object: set by hand here, both show the time of this change rather than the previous one.
    row.updatedAt = new Date();
    const presented = recorded.present(row);
    recordEvent(tx, business, `${recorded.resource}.updated`, recorded.eventObject?.(row) ?? presented);
    return presented;
  });
}

/**
 * Records the object as it was, then `remove`s it (by default through the unit of work; a remover may also refuse
 * by throwing, which rolls the event back). Answers the deleted id.
 */
export function deleteRecorded<T extends { id: string }>(
  em: EntityManager,
  recorded: RecordedResource<T, object>,
  business: string,
  id: string,
  remove: (row: T, tx: EntityManager) => unknown = (row, tx) => tx.remove(row),
): Promise<string> {
  return em.transactional(async (tx) => {
    const row = await recorded.find(tx, business, id, true);
    recordEvent(tx, business, `${recorded.resource}.deleted`, recorded.eventObject?.(row) ?? recorded.present(row));
    await remove(row, tx);
    return row.id;
  });
}
