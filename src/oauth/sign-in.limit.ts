import type { EntityManager } from '@mikro-orm/postgresql';
import { keyOf, windowVerdict, type Policy, type Verdict } from '../http/rate-limit/limiter.js';
import { FailureLimit, type FailureCounter } from '../http/rate-limit/failure-limit.js';
import { MAX_FAILURES, THROTTLE_WINDOW_MS, clearThrottle, countThrottleFailure, throttleFailures } from '../modules/oauth/index.js';

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

  /** Each statement on a fork: outside any transaction of the request, so a failure counts even when it fails. */
  private db() {
    return this.em.fork();
  }

  private row(key: string) {
    return `${this.policy.name}:${keyOf(key)}`;
  }

  async peek(key: string): Promise<Verdict> {
    const row = await throttleFailures(this.db(), this.row(key), this.window());
    return windowVerdict(this.policy, row?.failures ?? 0, row?.ms ?? 0);
  }

  async count(key: string): Promise<void> {
    await countThrottleFailure(this.db(), this.row(key), this.window());
  }

  async clear(key: string): Promise<void> {
    await clearThrottle(this.db(), this.row(key));
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
  return emailLimit(em, '');
}

/** A FailureLimit per (e-mail, address), per address and per e-mail, its counters named with `prefix`. */
function emailLimit(em: EntityManager, prefix: string): FailureLimit {
  const policy = (name: string, points: number): Policy => ({ name: prefix + name, points, seconds: THROTTLE_WINDOW_MS / 1000 });
  return new FailureLimit({
    pair: new TableCounter(em, policy('email-ip', MAX_FAILURES.emailAndAddress)),
    address: new TableCounter(em, policy('ip', MAX_FAILURES.address)),
    identifier: new TableCounter(em, policy('email', MAX_FAILURES.emailAndAddress)),
  });
}

/**
 * Requests that send an account e-mail (sign-up, password reset, a new confirmation link), each counted as a sign-in
 * failure is: 5 per (e-mail, address) and 50 per address in the window, then 429 for that address; per e-mail only
 * delays. Nobody can flood an inbox at speed, and a stranger's requests never refuse the address's owner elsewhere.
 */
export function accountRequests(em: EntityManager): FailureLimit {
  return emailLimit(em, 'mail-');
}
