import type { EntityManager } from '@mikro-orm/postgresql';
import { keyOf, windowVerdict, type Policy, type Verdict } from '../http/rate-limit/limiter.js';
import { FailureLimit, type FailureCounter } from '../http/rate-limit/failure-limit.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Wrong passwords within the window: per (e-mail, address) and per address before that address is refused. */
export const MAX_FAILURES = { emailAndAddress: 5, address: 50 } as const;

/**
 * Failed sign-ins in the sign_in_throttle table, one row per `<counter>:<key>`: shared by every server process and
 * kept across restarts (an in-memory counter would reset per process and per restart). One atomic upsert per failure,
 * so concurrent failures from several processes all count.
 */
class TableCounter implements FailureCounter {
  constructor(
    private readonly em: EntityManager,
    readonly policy: Policy,
  ) {}

  private row(key: string) {
    return `${this.policy.name}:${keyOf(key)}`;
  }

  async peek(key: string): Promise<Verdict> {
    const [row] = await this.em.getConnection().execute<{ failures: number; ms: number }[]>(
      `select failures, ceil(extract(epoch from window_started_at + ?::interval - now()) * 1000)::int as ms
         from sign_in_throttle where key = ? and window_started_at > now() - ?::interval`,
      [this.window(), this.row(key), this.window()],
    );
    return windowVerdict(this.policy, row?.failures ?? 0, row?.ms ?? 0);
  }

  async count(key: string): Promise<void> {
    await this.em.getConnection().execute(
      `insert into sign_in_throttle as t (key, failures, window_started_at) values (?, 1, now())
       on conflict (key) do update set
         failures = case when t.window_started_at <= now() - ?::interval then 1 else t.failures + 1 end,
         window_started_at = case when t.window_started_at <= now() - ?::interval then now() else t.window_started_at end`,
      [this.row(key), this.window(), this.window()],
    );
  }

  async clear(key: string): Promise<void> {
    await this.em.getConnection().execute('delete from sign_in_throttle where key = ?', [this.row(key)]);
  }

  private window() {
    return `${this.policy.seconds} seconds`;
  }
}

/**
 * The sign-in page's FailureLimit, keyed by normalised e-mail: per (e-mail, address) and per address a refusal for the
 * rest of the window; per e-mail (from every address) only growing delays for addresses that have failed on it, so
 * nobody can lock an owner out by guessing from elsewhere.
 */
export function signInFailures(em: EntityManager): FailureLimit {
  const policy = (name: string, points: number): Policy => ({ name, points, seconds: THROTTLE_WINDOW_MS / 1000 });
  return new FailureLimit({
    pair: new TableCounter(em, policy('email-ip', MAX_FAILURES.emailAndAddress)),
    address: new TableCounter(em, policy('ip', MAX_FAILURES.address)),
    identifier: new TableCounter(em, policy('email', MAX_FAILURES.emailAndAddress)),
  });
}
