import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Expression, type RawBuilder } from 'kysely';
import { db } from '../../kit/db/db.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { EventSubscriber } from './event-subscriber.entity.js';

/** The event module's statements, on the EntityManager's own Kysely (`em`'s transaction when it has one). */
interface EventDB {
  event_subscriber: TableOf<EventSubscriber>;
}

const eventKysely = (em: EntityManager) => db<EventDB>(em);

/** The columns an event is written with, in the order `insertEvents`' rows give them. */
export const EVENT_COLUMNS = ['id', 'business_id', 'type', 'data', 'created_at'] as const;

/**
 * The event table's one writer besides the ORM's recordEvent: the event of a change inside the statement that makes
 * the change (a CTE of it, or its last part), so the change and its event commit as one statement. `rows` selects the
 * EVENT_COLUMNS in order; answers `returning` (the audience trigger's `fanout_pending`: whom to tell, event.signal.ts).
 */
export function insertEvents(
  rows: Expression<unknown>,
  returning: 'fanout_pending' | 'id, fanout_pending' = 'fanout_pending',
): RawBuilder<{ fanout_pending: boolean | null }> {
  return sql`insert into event (${sql.raw(EVENT_COLUMNS.join(', '))}) ${rows} returning ${sql.raw(returning)}`;
}

/** Registers (or refreshes) `process` as a listener of these businesses' events for `seconds`. */
export async function registerSubscriber(em: EntityManager, process: string, businesses: string[], seconds: number) {
  const expiresAt = sql<Date>`now() + make_interval(secs => ${seconds})`;
  await eventKysely(em)
    .insertInto('event_subscriber')
    .values(businesses.map((business) => ({ business_id: business, process, expires_at: expiresAt })))
    .onConflict((oc) => oc.columns(['business_id', 'process']).doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') }))
    .execute();
}

/** Rows of processes gone for an hour: a tidy table (an expired row already notifies nobody). */
export async function forgetGoneSubscribers(em: EntityManager) {
  await eventKysely(em).deleteFrom('event_subscriber').where('expires_at', '<', sql<Date>`now() - interval '1 hour'`).execute();
}

/** Removes `process`'s registration of `business` (of every business: null). */
export async function unregisterSubscriber(em: EntityManager, process: string, business: string | null) {
  let query = eventKysely(em).deleteFrom('event_subscriber').where('process', '=', process);
  if (business !== null) query = query.where('business_id', '=', business);
  await query.execute();
}
