/** The stored fields that frame every presented business-owned object (entities and SQL rows alike). */
export interface OwnedRecord {
  id: string;
  business: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A business-owned object as the API shows it (ResourceType's fields plus the owner): its id, `object` (what it
 * is), its business, then its own `fields`, then its timestamps. The key order is part of the output: JSON answers,
 * event payloads and webhook bodies keep it.
 */
export function presentOwned<R extends OwnedRecord, O extends string, F extends object>(row: R, object: O, fields: F) {
  return { id: row.id, object, business: row.business as R['business'], ...fields, createdAt: row.createdAt, updatedAt: row.updatedAt };
}
