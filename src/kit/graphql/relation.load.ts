import { AppError } from '../../shared/errors.js';

/** A request loader's `load` (Loaders.byId): null for an id that names no row. */
interface RowLoader<R> {
  load(id: string): Promise<R | null>;
}

/**
 * The row an optional relation points at, presented: null when there is no id or the row is gone (a deleted
 * survey). Through the request's loader, so a page of objects asks for their relations in one statement.
 */
export async function loadRelated<R, P>(loader: RowLoader<R>, id: string | null | undefined, present: (row: R) => P): Promise<P | null> {
  const row = id ? await loader.load(id) : null;
  return row ? present(row) : null;
}

/** The row a required relation points at, presented; NOT_FOUND naming `label` and the id when it is gone. */
export async function loadRequired<R, P>(loader: RowLoader<R>, id: string, label: string, present: (row: R) => P): Promise<P> {
  const row = await loader.load(id);
  if (!row) throw AppError.notFound(label, id);
  return present(row);
}
