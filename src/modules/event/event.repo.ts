import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { EventSubscriber } from './event-subscriber.entity.js';

/** The event module's statements, on the EntityManager's own Kysely (`em`'s transaction when it has one). */
interface EventDB {
  event_subscriber: TableOf<EventSubscriber>;
}

const eventKysely = (em: EntityManager) => db<EventDB>(em);

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
