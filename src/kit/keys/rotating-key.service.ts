import { sql } from 'kysely';
import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { db } from '../db/db.js';
import type { RotatingKey } from './rotating-key.entity.js';

type KeyClass<K> = new () => K;

/** Serialises the changes of one kind of key until `tx` ends (a transaction advisory lock named by its table). */
async function lockKeys(tx: EntityManager, entity: KeyClass<RotatingKey>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${tx.getMetadata().get(entity).tableName}))`.execute(db(tx));
}

/** Makes `fresh` the active key and retires the previous one(s), in one transaction under the kind's lock. */
export function rotateKey<K extends RotatingKey & { kid: string }>(
  em: EntityManager,
  entity: KeyClass<K>,
  fresh: RequiredEntityData<K>,
): Promise<{ kid: string; retired: string[] }> {
  return em.transactional(async (tx) => {
    await lockKeys(tx, entity);
    const previous = await tx.find(entity, { active: true } as never);
    for (const key of previous) {
      key.active = false;
      key.retiredAt = new Date();
    }
    const made = tx.create(entity, { ...fresh, active: true });
    return { kid: made.kid, retired: previous.map((k) => k.kid) };
  });
}

/** The first key, made by `make` when there is none (several processes may start at once: the lock makes one win). */
export async function ensureActiveKey<K extends RotatingKey>(
  em: EntityManager,
  entity: KeyClass<K>,
  make: () => Promise<RequiredEntityData<K>> | RequiredEntityData<K>,
): Promise<void> {
  const fork = em.fork();
  if (await fork.count(entity, { active: true } as never)) return;
  const fresh = await make();
  await fork.transactional(async (tx) => {
    await lockKeys(tx, entity);
    if (!(await tx.count(entity, { active: true } as never))) tx.create(entity, { ...fresh, active: true });
  });
}
