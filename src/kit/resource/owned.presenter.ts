/** The stored fields that frame every business-owned object, entities and repository rows alike. */
export interface OwnedRecord {
  id: string;
  business: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A record's field as the API shows it: never undefined, an unset optional field is null. */
type Shown<T> = Exclude<T, undefined> | (undefined extends T ? null : never);

export type Presented<R extends OwnedRecord, O extends string, K extends keyof R> = { id: string; object: O; business: R['business'] } & {
  -readonly [P in K]-?: Shown<R[P]>;
} & { createdAt: Date; updatedAt: Date };

/**
 * The presenter of a resource that shows its record's own fields as they are: `id`, `object`, `business`, the
 * `fields` in the order given (an unset one as null), `createdAt`, `updatedAt`. The key order is part of the output
 * (JSON answers, event payloads and webhook bodies keep it); every object of one presenter gets its keys in the same
 * order, so they share one shape. Resources that compute a field (a nested object, a renamed column) write their
 * literal themselves.
 */
export function ownedPresenter<R extends OwnedRecord, const O extends string, const K extends Exclude<keyof R, keyof OwnedRecord>>(
  object: O,
  fields: readonly K[],
): (record: R) => Presented<R, O, K> {
  return (record) => {
    const shown: Record<string, unknown> = { id: record.id, object, business: record.business };
    for (const field of fields) shown[field as string] = record[field] ?? null;
    shown.createdAt = record.createdAt;
    shown.updatedAt = record.updatedAt;
    return shown as Presented<R, O, K>;
  };
}
