import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The recipe every creation, update and delete of a business's object follows, written once: in one transaction,
 * create (or find and lock) the object, check and apply the change, present it, record `<resource>.created`,
 * `.updated` or `.deleted` with it. The event module binds it to its recordEvent (recordedChanges), as the kit may not
 * import a module.
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

/** Adds the event `type` about `object` to the business's log, in the transaction `tx` (flushed with it). */
export type RecordEvent = (tx: EntityManager, business: string, type: string, object: object) => unknown;

/** The recipe's three writers, recording their events with `record`. */
export function recordedChanges(record: RecordEvent) {
  return {
    /** `create` makes the object in the transaction (the ORM inserts it at commit, with its event). */
    createRecorded<T, P extends object>(
      em: EntityManager,
      recorded: RecordedResource<T, P>,
      business: string,
      create: (tx: EntityManager) => T | Promise<T>,
    ): Promise<P> {
      return em.transactional(async (tx) => {
        const row = await create(tx);
        const presented = recorded.present(row);
        record(tx, business, `${recorded.resource}.created`, recorded.eventObject?.(row) ?? presented);
        return presented;
      });
    },

    /** `apply` checks the input (throwing rolls everything back) and assigns it to the locked object. */
    updateRecorded<T extends object, P extends object>(
      em: EntityManager,
      recorded: RecordedResource<T, P>,
      business: string,
      id: string,
      apply: (row: T, tx: EntityManager) => unknown,
    ): Promise<P> {
      return em.transactional(async (tx) => {
        const row = await recorded.find(tx, business, id, true);
        await apply(row, tx);
        // The ORM stamps updatedAt (onUpdate) at flush, overwriting any time set before: flushed here, the answer and
        // the event show the time stored (the UPDATE goes out now instead of at commit, no round trip more).
        await tx.flush();
        const presented = recorded.present(row);
        record(tx, business, `${recorded.resource}.updated`, recorded.eventObject?.(row) ?? presented);
        return presented;
      });
    },

    /**
     * Records the object as it was, then `remove`s it (by default through the unit of work; a remover may also refuse
     * by throwing, which rolls the event back). Answers the deleted id.
     */
    deleteRecorded<T extends { id: string }>(
      em: EntityManager,
      recorded: RecordedResource<T, object>,
      business: string,
      id: string,
      remove: (row: T, tx: EntityManager) => unknown = (row, tx) => tx.remove(row),
    ): Promise<string> {
      return em.transactional(async (tx) => {
        const row = await recorded.find(tx, business, id, true);
        record(tx, business, `${recorded.resource}.deleted`, recorded.eventObject?.(row) ?? recorded.present(row));
        await remove(row, tx);
        return row.id;
      });
    },
  };
}
