import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimitSettings } from '../../config.js';
import type { Principal } from '../../auth/principal.js';
import { Limiter, limitHeaders, memoryStore, redisStore, refusal, type LimitStore, type Policy } from './limiter.js';
import { FailureLimit } from './failure-limit.js';
import { PORTAL_CREDENTIAL_ID } from '../../modules/oauth/index.js';
import { addressGroup } from '../client-address.js';

export { FailureLimit } from './failure-limit.js';

/** The reserve above the per-second rate refills over this long (see Policy). */
const BURST_WINDOW_SECONDS = 60;

function ratePolicy(name: string, perSecond: number, burst: number): Policy {
  return { name, points: perSecond, seconds: 1, ...(burst > perSecond ? { burst: { points: burst - perSecond, seconds: BURST_WINDOW_SECONDS } } : {}) };
}

/** A GraphQL operation (or REST route) weighs one unit per 100 of its estimated cost, at least one. */
export const weightOf = (cost: number) => Math.max(1, Math.ceil(cost / 100));

/** What a door tells the client: the fields for every answer, or the 429 to throw. */
export interface Charge {
  headers: Record<string, string>;
  remaining: number;
}

/** The business portal's people together spend at most this many times one person's quota in a business. */
const PORTAL_BUSINESS_FACTOR = 5;

/**
 * The API quota (REST and GraphQL alike) per (credential, business), or per address (its group: an IPv6 /64) for
 * calls without a valid token. The portal's credential is every member's: its quota is per person (user, business)
 * instead, as each person's screens are their own, with the business's portal traffic together held to
 * PORTAL_BUSINESS_FACTOR times that.
 * Throws the 429 (AppError rate_limited, with its headers) when spent.
 */
export class ApiLimit {
  constructor(
    private readonly limiter: Limiter | undefined,
    private readonly portalBusiness?: Limiter,
  ) {}

  async charge(auth: Principal | undefined, address: string, cost: number): Promise<Charge | undefined> {
    if (!this.limiter) return undefined;
    const weight = weightOf(cost);
    if (auth?.credentialId === PORTAL_CREDENTIAL_ID) {
      const person = await this.limiter.take(`portal|${auth.businessId}|${auth.userId}`, weight);
      if (!person.allowed) throw refusal([person], 'Too many requests from you in a short time: wait a moment');
      const business = await this.portalBusiness!.take(`portal|${auth.businessId}`, weight);
      if (!business.allowed) throw refusal([business], "Too many requests from this business's team in a short time: wait a moment");
      return { headers: limitHeaders([person, business]), remaining: Math.min(person.remaining, business.remaining) };
    }
    const key = auth ? `${auth.credentialId}|${auth.businessId}` : `ip|${addressGroup(address)}`;
    const verdict = await this.limiter.take(key, weight);
    if (!verdict.allowed) throw refusal([verdict], 'Too many API requests for this credential and business');
    return { headers: limitHeaders([verdict]), remaining: verdict.remaining };
  }
}

/** Orders per business on the custom webhook. */
export class KeyedLimit {
  constructor(
    private readonly limiter: Limiter | undefined,
    private readonly message: string,
  ) {}

  async charge(key: string): Promise<Record<string, string>> {
    if (!this.limiter) return {};
    const verdict = await this.limiter.take(key);
    if (!verdict.allowed) throw refusal([verdict], this.message);
    return limitHeaders([verdict]);
  }
}

export interface RateLimits {
  api: ApiLimit;
  webhook: KeyedLimit;
  oauthFailures: FailureLimit;
  webhookFailures: FailureLimit;
  /** New guest responses per address and survey (the guest pages). */
  guest: Limiter;
  /** The Redis client of REDIS_URL, when set: others share it (the read-your-writes window, src/kit/replicas/read.routing.ts). */
  redis?: Redis;
  /** Quits Redis, if any. */
  close(): Promise<void>;
}

// The Redis client is loaded when REDIS_URL is set, not by every process at start: heap a process without Redis never uses.
const require = createRequire(import.meta.url);

/**
 * Every door's limits, from the configuration: in this process's memory, or in Redis when REDIS_URL is set (then a
 * quota is shared by every process, as partners read it).
 */
export function createRateLimits(options: { settings: RateLimitSettings; redisUrl?: string; keyPrefix: string; logger?: Logger }): RateLimits {
  const { settings: s } = options;
  let redis: Redis | undefined;
  let store: LimitStore;
  if (options.redisUrl) {
    // No offline queue: a command while Redis is away fails at once and the memory fallback answers.
    const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
    redis = new RedisClient(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    // Said once per outage, not at every reconnection attempt.
    let down = false;
    redis.on('error', (err) => {
      if (!down) options.logger?.warn({ err: err.message }, 'Redis unavailable: each process counts its rate limits alone until it is back');
      down = true;
    });
    redis.on('ready', () => {
      if (down) options.logger?.info('Redis is back: rate limits are shared again');
      down = false;
    });
    store = redisStore(redis, options.keyPrefix);
  } else {
    store = memoryStore(options.keyPrefix);
  }
  const limiter = (policy: Policy | undefined) => (policy && policy.points > 0 ? new Limiter(policy, store) : undefined);
  const windowSeconds = Math.ceil(s.authFailureWindowMs / 1000);
  // Refusals per (identifier, address) and per address; the identifier's count from every address never refuses, but
  // past the same number it delays the addresses that have failed on it (FailureLimit).
  const failures = (name: string, addressName: string) =>
    new FailureLimit({
      pair: limiter({ name, points: s.authFailuresPerClient, seconds: windowSeconds }),
      address: limiter({ name: addressName, points: s.authFailuresPerAddress, seconds: windowSeconds }),
      identifier: limiter({ name: `${name}-all`, points: s.authFailuresPerClient, seconds: windowSeconds }),
    });
  return {
    api: new ApiLimit(
      limiter(ratePolicy('api', s.apiPerSecond, s.apiBurst)),
      limiter(ratePolicy('portal-business', s.apiPerSecond * PORTAL_BUSINESS_FACTOR, s.apiBurst * PORTAL_BUSINESS_FACTOR)),
    ),
    webhook: new KeyedLimit(limiter(ratePolicy('webhook', s.webhookPerSecond, s.webhookBurst)), 'Too many orders for this business'),
    oauthFailures: failures('auth-client', 'auth-address'),
    webhookFailures: failures('webhook-secret', 'webhook-secret-address'),
    guest: new Limiter({ name: 'guest-responses', points: 10, seconds: 600 }, store),
    redis,
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
