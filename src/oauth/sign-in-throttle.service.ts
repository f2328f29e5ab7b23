import type { EntityManager } from '@mikro-orm/postgresql';
import { normaliseEmail } from '../modules/user/user.service.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Failures within the window before sign-in is refused for the rest of it: per account, and per client address. */
export const MAX_FAILURES = { email: 5, ip: 50 } as const;

export function throttleKeys(email: string, ip: string) {
  return { email: `email:${normaliseEmail(email)}`, ip: `ip:${ip}` };
}

/** Seconds until sign-in is allowed again for any of these keys, or 0. */
export async function signInRetryAfter(em: EntityManager, keys: string[]): Promise<number> {
  const [row] = await em.getConnection().execute<{ wait: number | null }[]>(
    `select ceil(extract(epoch from max(locked_until) - now()))::int as wait
       from sign_in_throttle where key in (${keys.map(() => '?').join(', ')}) and locked_until > now()`,
    keys,
  );
  return row?.wait ?? 0;
}

/** One atomic upsert per key: concurrent failures from several processes all count. */
export async function recordSignInFailure(em: EntityManager, key: string, limit: number): Promise<void> {
  const window = `${THROTTLE_WINDOW_MS} milliseconds`;
  await em.getConnection().execute(
    `insert into sign_in_throttle as t (key, failures, window_started_at, locked_until)
     values (?, 1, now(), case when 1 >= ? then now() + ?::interval end)
     on conflict (key) do update set
       failures = case when t.window_started_at < now() - ?::interval then 1 else t.failures + 1 end,
       window_started_at = case when t.window_started_at < now() - ?::interval then now() else t.window_started_at end,
       locked_until = case
         when (case when t.window_started_at < now() - ?::interval then 1 else t.failures + 1 end) >= ? then now() + ?::interval
         else t.locked_until end`,
    [key, limit, window, window, window, window, limit, window],
  );
}

export async function clearSignInFailures(em: EntityManager, key: string): Promise<void> {
  await em.getConnection().execute('delete from sign_in_throttle where key = ?', [key]);
}
