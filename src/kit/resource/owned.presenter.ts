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

/** The fields a presenter writes between `business` and `createdAt`. */
type OwnFields<T> = Exclude<keyof T, 'id' | 'object' | 'business' | 'createdAt' | 'updatedAt'>;

/**
 * Where a shown field comes from: a field of the record, `'name'` when the record always has it, `'description?'` when
 * it may be unset (shown as null then); or a function of the record.
 */
type FieldSource<R, V> =
  | { [F in keyof R & string]-?: undefined extends R[F] ? (Shown<R[F]> extends V ? `${F}?` : never) : R[F] extends V ? F : never }[keyof R & string]
  | ((record: R) => V);

/** Keys a `T` may leave out (a field its own resolver fills, such as a survey's `steps`). */
type OptionalKeys<T> = { [P in keyof T]-?: undefined extends T[P] ? P : never }[keyof T];

/** A presenter's own fields, in the order they are shown, each with where it comes from; only `T`'s optional ones may be left out. */
export type ShownFields<R, T> = { [P in Exclude<OwnFields<T>, OptionalKeys<T>>]-?: FieldSource<R, T[P]> } & {
  [P in Extract<OwnFields<T>, OptionalKeys<T>>]?: FieldSource<R, T[P]>;
};

const NAME = /^[A-Za-z_$][\w$]*\??$/;

/**
 * The presenter of a resource: `id`, `object`, `business`, its own fields in the order given (a record's field,
 * `itemId: 'externalItemId?'`, an unset one as null; or computed, `guest: (c) => ({ ... })`), `createdAt`, `updatedAt`.
 * The key order is part of the output (JSON answers, event payloads and webhook bodies keep it). Each presenter is
 * compiled once into one object literal, so every object it makes has one shape; the field names are the code's own
 * constants, never a request's.
 */
export function ownedPresenter<R extends OwnedRecord, const O extends string, const K extends Exclude<keyof R, keyof OwnedRecord>>(
  object: O,
  fields: readonly K[],
): (record: R) => Presented<R, O, K>;
export function ownedPresenter<R extends OwnedRecord, T extends { object: string }>(object: T['object'], fields: ShownFields<R, T>): (record: R) => T;
export function ownedPresenter(object: string, fields: readonly string[] | Partial<Record<string, string | ((record: never) => unknown)>>) {
  const sources = Array.isArray(fields) ? fields.map((field) => [field, `${field}?`] as const) : Object.entries(fields);
  const computed: unknown[] = [];
  const shown = sources.map(([name, source]) => {
    if (!NAME.test(name) || name.endsWith('?') || (typeof source === 'string' && !NAME.test(source)))
      throw new Error(`ownedPresenter(${object}): '${name}' is no field name`);
    if (typeof source === 'string') return source.endsWith('?') ? `${name}: r.${source.slice(0, -1)} ?? null` : `${name}: r.${source}`;
    computed.push(source);
    return `${name}: f${computed.length - 1}(r)`;
  });
  const literal = ['id: r.id', `object: ${JSON.stringify(object)}`, 'business: r.business', ...shown, 'createdAt: r.createdAt', 'updatedAt: r.updatedAt'];
  const parameters = computed.map((_, i) => `f${i}`);
  return new Function(...parameters, `return (r) => ({ ${literal.join(', ')} });`)(...computed);
}
