/** The stored fields that frame every presented business-owned object (entities and SQL rows alike). */
export interface OwnedRecord {
  id: string;
  business: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Frame = (row: OwnedRecord, object: string, fields: object) => object;

/** By `object`: the frame of that kind of object, and the field names it was made for. */
const frames = new Map<string, { frame: Frame; keys: string }>();
/** In tests every call checks that its kind's fields are still the ones its frame was made for (see presentOwned). */
const CHECK_KEYS = process.env.NODE_ENV === 'test';

/**
 * A business-owned object as the API shows it (ResourceType's fields plus the owner): its id, `object` (what it
 * is), its business, then its own `fields`, then its timestamps. The key order is part of the output: JSON answers,
 * event payloads and webhook bodies keep it.
 *
 * Written as `{ id, object, business, ...fields, createdAt, updatedAt }`, a spread in the middle of a literal copies
 * property by property through V8's generic path: about 8 times the cost of a literal naming each key, and a page of
 * 300 objects spent 4-5% of its CPU here. So each kind of object gets that literal, made once from the names of its
 * first `fields` (a presenter's fields are an object literal: the same names every time, which tests check).
 */
export function presentOwned<R extends OwnedRecord, O extends string, F extends object>(row: R, object: O, fields: F) {
  let made = frames.get(object);
  if (!made) frames.set(object, (made = makeFrame(Object.keys(fields))));
  else if (CHECK_KEYS && Object.keys(fields).join() !== made.keys) {
    throw new Error(`presentOwned: the fields of ${object} changed from ${made.keys} to ${Object.keys(fields).join()}; a presenter's fields must be one object literal`);
  }
  return made.frame(row, object, fields) as { id: string; object: O; business: R['business'] } & F & { createdAt: Date; updatedAt: Date };
}

function makeFrame(keys: string[]) {
  const copies = keys.map((key) => `${JSON.stringify(key)}: f[${JSON.stringify(key)}], `).join('');
  // eslint-disable-next-line no-new-func -- the names are a presenter's own property names, quoted as JSON strings
  const frame = new Function('row', 'object', 'f', `return { id: row.id, object, business: row.business, ${copies}createdAt: row.createdAt, updatedAt: row.updatedAt };`) as Frame;
  return { frame, keys: keys.join() };
}
