import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { THROTTLE_WINDOW_MS } from './oauth.model.js';
import { deleteEndedThrottles, deleteExpiredCodes, deleteExpiredTokens, whileLocked } from './oauth.repo.js';

/** Rows kept this long after they stop mattering (expired codes, tokens whose access and refresh both expired). */
const GRACE = '1 day';
const EVERY_MS = 60 * 60_000;
const FIRST_AFTER_MS = 5 * 60_000;

/**
 * Deletes what can no longer be used: authorization codes and tokens a day after their last expiry (a replayed code
 * or a reused refresh token is refused by its expiry by then, so nothing of the replay detection is lost), and
 * sign-in throttle rows whose window is over. Idempotent: every server process may run it.
 */
export async function purgeExpired(em: EntityManager): Promise<{ codes: number; tokens: number; throttles: number }> {
  const codes = await deleteExpiredCodes(em, GRACE);
  const tokens = await deleteExpiredTokens(em, GRACE);
  const throttles = await deleteEndedThrottles(em, `${THROTTLE_WINDOW_MS} milliseconds`);
  return { codes, tokens, throttles };
}

// Any constant of ours: PostgreSQL advisory locks are keyed by a number.
const PURGE_LOCK = 73_420_114;

/**
 * The purge by one process at a time: every process schedules it, and one that finds another purging skips its turn
 * (a session advisory lock on a connection of its own, held while the purge runs).
 */
export async function purgeOnce(em: EntityManager): Promise<Awaited<ReturnType<typeof purgeExpired>> | undefined> {
  return whileLocked(em, PURGE_LOCK, () => purgeExpired(em));
}

/**
 * Runs the purge hourly, the first time at a random moment between FIRST_AFTER_MS and an hour later: a process just
 * started (or idle) sends nothing meanwhile, and a fleet started at once spreads its purges over the hour. Returns
 * the function that stops it (before the ORM closes).
 */
export function schedulePurge(em: EntityManager, logger: Logger): () => void {
  const run = () =>
    purgeOnce(em.fork())
      .then((removed) => logger.debug(removed ?? { skipped: 'another process is purging' }, 'expired OAuth rows purged'))
      .catch((err) => logger.warn({ err }, 'purging expired OAuth rows failed; will retry'));
  let timer = setTimeout(
    () => {
      timer = setInterval(run, EVERY_MS).unref();
      void run();
    },
    FIRST_AFTER_MS + Math.random() * EVERY_MS,
  ).unref();
  return () => clearTimeout(timer);
}
