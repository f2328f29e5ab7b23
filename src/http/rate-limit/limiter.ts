import { createHash } from 'node:crypto';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../../shared/errors.js';
import { rateLimitRefusals } from '../../kit/metrics/metrics.js';

/**
 * One quota: `points` units per `seconds`, optionally with a reserve of `burst.points` more per `burst.seconds` that
 * a client draws on once the rate is spent (rate-limiter-flexible's BurstyRateLimiter: a token bucket in two fixed
 * windows, exact in Redis across processes).
 */
export interface Policy {
  name: string;
  points: number;
  seconds: number;
  burst?: { points: number; seconds: number };
}

export interface Verdict {
  allowed: boolean;
  policy: Policy;
  /** Units counted in the current window of the main quota (failure counters read it past the quota too). */
  consumed: number;
  /** Units left in the current window of the main quota. */
  remaining: number;
  /** Seconds until the main quota's window restarts (at least 1 when refused: Retry-After). */
  resetSeconds: number;
}

/** Where counters live: this process's memory, or Redis shared by every process (with memory as a fallback). */
export interface LimitStore {
  create(prefix: string, points: number, seconds: number): RateLimiterAbstract;
}

export function memoryStore(keyPrefix = ''): LimitStore {
  return { create: (prefix, points, duration) => new RateLimiterMemory({ keyPrefix: `${keyPrefix}${prefix}`, points, duration }) };
}

/**
 * Redis, shared by every process. If Redis stops answering, each process falls back to its own memory counters
 * (insuranceLimiter) rather than refusing traffic or letting everything through.
 */
export function redisStore(redis: Redis, keyPrefix: string): LimitStore {
  return {
    create: (prefix, points, duration) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${keyPrefix}rl:${prefix}`,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${keyPrefix}rl:${prefix}`, points, duration }),
      }),
  };
}

/** Client ids and addresses come from clients: long ones are hashed so a key stays small in memory and in Redis. */
export function keyOf(key: string): string {
  return key.length <= 120 ? key : createHash('sha256').update(key).digest('base64url');
}

export class Limiter {
  private readonly limiter: RateLimiterAbstract | BurstyRateLimiter;
  private readonly main: RateLimiterAbstract;

  constructor(
    readonly policy: Policy,
    store: LimitStore,
  ) {
    this.main = store.create(policy.name, policy.points, policy.seconds);
    this.limiter = policy.burst ? new BurstyRateLimiter(this.main, store.create(`${policy.name}-burst`, policy.burst.points, policy.burst.seconds)) : this.main;
  }

  /** Counts `weight` units (at most the quota, so one request can always pass on a fresh window). */
  async take(key: string, weight = 1): Promise<Verdict> {
    const points = Math.min(Math.max(1, weight), this.policy.points);
    try {
      return this.verdict(true, await this.limiter.consume(keyOf(key), points));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      rateLimitRefusals.inc({ limit: this.policy.name });
      return this.verdict(false, res);
    }
  }

  /** How the key stands, counting nothing: not allowed when its quota is spent (failure counters; the caller refuses). */
  async peek(key: string): Promise<Verdict> {
    const res = await this.main.get(keyOf(key));
    return windowVerdict(this.policy, res?.consumedPoints ?? 0, res?.msBeforeNext ?? 0);
  }

  /** Counts one unit whatever the outcome (failure counters). */
  async count(key: string): Promise<void> {
    await this.main.penalty(keyOf(key), 1);
  }

  /** Forgets the key's count (a failure counter once the right secret came). */
  async clear(key: string): Promise<void> {
    await this.main.delete(keyOf(key));
  }

  private verdict(allowed: boolean, res: RateLimiterRes): Verdict {
    return {
      allowed,
      policy: this.policy,
      consumed: res.consumedPoints,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}

/** A fixed window's standing from its count and the time until it restarts (any store: memory, Redis, PostgreSQL). */
export function windowVerdict(policy: Policy, consumed: number, msBeforeNext: number): Verdict {
  const allowed = consumed < policy.points;
  return {
    allowed,
    policy,
    consumed,
    remaining: Math.max(0, policy.points - consumed),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(msBeforeNext / 1000)),
  };
}

/**
 * The IETF fields (draft-ietf-httpapi-ratelimit-headers-11): `RateLimit-Policy` lists the quotas (`q` units per `w`
 * seconds), `RateLimit` the one nearest to refusal (`r` units left, `t` seconds until its window restarts).
 */
export function limitHeaders(verdicts: Verdict[]): Record<string, string> {
  const policies = verdicts.flatMap(({ policy: p }) => [
    `"${p.name}";q=${p.points};w=${p.seconds}`,
    ...(p.burst ? [`"${p.name}-burst";q=${p.burst.points};w=${p.burst.seconds}`] : []),
  ]);
  const nearest = verdicts.reduce((a, b) => (b.remaining / b.policy.points < a.remaining / a.policy.points ? b : a));
  return {
    'RateLimit-Policy': policies.join(', '),
    RateLimit: `"${nearest.policy.name}";r=${nearest.remaining};t=${nearest.resetSeconds}`,
  };
}

/** 429 with Retry-After and the fields: the error body says which limit and when to come back. */
export function refusal(verdicts: Verdict[], message: string): AppError {
  const refused = verdicts.filter((v) => !v.allowed);
  const retryAfter = Math.max(1, ...refused.map((v) => v.resetSeconds));
  return new AppError('rate_limited', `${message}; retry after ${retryAfter} s`, undefined, {
    ...limitHeaders(refused.length ? refused : verdicts),
    'Retry-After': String(retryAfter),
  });
}
