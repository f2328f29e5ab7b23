import type { EntityManager } from '@mikro-orm/postgresql';

const PING_TIMEOUT_MS = 2_000;

/** Whether PostgreSQL answers within 2 s: readiness and the `health` query. */
export async function pingDatabase(em: EntityManager): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
    });
    await Promise.race([em.getConnection().execute('select 1'), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
