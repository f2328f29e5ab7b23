import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../shared/errors.js';
import { rateLimitRefusals } from '../../kit/metrics/metrics.js';
import { limitHeaders, refusal, type Policy, type Verdict } from './limiter.js';
import { addressGroup } from '../client-address.js';

/**
 * A failure counter in fixed windows: how a key stands (counting nothing), one failure more, the key forgotten.
 * Limiter (memory or Redis) is one; the sign-in's PostgreSQL table is another.
 */
export interface FailureCounter {
  readonly policy: Policy;
  peek(key: string): Promise<Verdict>;
  count(key: string): Promise<void>;
  clear(key: string): Promise<void>;
}

export interface FailureCounters {
  /** Failures of one identifier from one address: past its quota, that address is refused for that identifier. */
  pair?: FailureCounter;
  /** Failures from one address, whatever the identifier: past its quota, that address is refused. */
  address?: FailureCounter;
  /**
   * Failures of one identifier from every address. It never refuses: past its quota, an address that has failed on
   * the identifier waits a growing delay before its secret is compared.
   */
  identifier?: FailureCounter;
}

/** The first delay, doubled with each failure on the identifier past its quota, up to the last. */
const FIRST_DELAY_MS = 500;
const LAST_DELAY_MS = 30_000;

function guessDelayMs(failuresPastQuota: number): number {
  if (failuresPastQuota <= 0) return 0;
  return Math.min(LAST_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(failuresPastQuota - 1, 16));
}

/** Guesses waiting at once in this process, per identifier and in all: past either, a guess is refused at once. */
const MAX_HELD_PER_IDENTIFIER = 10;
const MAX_HELD = 1_000;

/** The requests a FailureLimit holds in its delays: counted, so they cannot pile up. */
class Holds {
  private total = 0;
  private readonly perIdentifier = new Map<string, number>();

  tryHold(identifier: string): boolean {
    const held = this.perIdentifier.get(identifier) ?? 0;
    if (held >= MAX_HELD_PER_IDENTIFIER || this.total >= MAX_HELD) return false;
    this.perIdentifier.set(identifier, held + 1);
    this.total++;
    return true;
  }

  release(identifier: string): void {
    const held = (this.perIdentifier.get(identifier) ?? 1) - 1;
    if (held > 0) this.perIdentifier.set(identifier, held);
    else this.perIdentifier.delete(identifier);
    this.total--;
  }
}

/** What admit() let through: the fields for the answer, and what succeeded() needs. */
export interface Admission {
  headers: Record<string, string>;
  identifier: string;
  /** The client's address group (addressGroup): an IPv6 client's /64. */
  address: string;
  /** This address had failed on this identifier in the window. */
  hadFailed: boolean;
}

/**
 * Failed authentications at one door (OAuth client secrets, webhook secrets, sign-in passwords), counted per
 * (identifier, address), per address and per identifier; an address is its group (addressGroup: an IPv6 /64). Checked before the secret is compared: an address past its
 * quota for the identifier, or in all, is refused without comparing (its guesses are never confirmed), and an
 * address that has failed on an identifier under attack waits first. An address that has not failed on the
 * identifier is never refused nor held for another address's failures: a stranger holding a public identifier
 * cannot lock out its rightful holder.
 */
export class FailureLimit {
  private readonly holds = new Holds();

  constructor(private readonly counters: FailureCounters) {}

  /** Throws the 429 when refused; waits the identifier's delay when this address has failed on it. */
  async admit(identifier: string, clientAddress: string): Promise<Admission> {
    const { pair, address: perAddress } = this.counters;
    const address = addressGroup(clientAddress);
    const [pairStanding, addressStanding] = await Promise.all([pair?.peek(pairKey(identifier, address)), perAddress?.peek(address)]);
    const verdicts = [pairStanding, addressStanding].filter((v) => v !== undefined);
    const refused = verdicts.filter((v) => !v.allowed);
    for (const v of refused) rateLimitRefusals.inc({ limit: v.policy.name });
    if (refused.length) throw refusal(verdicts, 'Too many failed authentications');
    const hadFailed = (pairStanding?.consumed ?? 0) > 0;
    if (hadFailed) await this.delay(identifier);
    return { headers: verdicts.length ? limitHeaders(verdicts) : {}, identifier, address, hadFailed };
  }

  async failed(identifier: string, clientAddress: string): Promise<void> {
    const { pair, address: perAddress, identifier: perIdentifier } = this.counters;
    const address = addressGroup(clientAddress);
    await Promise.all([pair?.count(pairKey(identifier, address)), perAddress?.count(address), perIdentifier?.count(identifier)]);
  }

  /** The right secret: this address's failures on the identifier are forgotten (nothing to write when there were none). */
  async succeeded(admission: Admission | undefined): Promise<void> {
    if (admission?.hadFailed) await this.counters.pair?.clear(pairKey(admission.identifier, admission.address));
  }

  private async delay(identifier: string): Promise<void> {
    const counter = this.counters.identifier;
    if (!counter) return;
    const standing = await counter.peek(identifier);
    const ms = guessDelayMs(standing.consumed - counter.policy.points);
    if (!ms) return;
    if (!this.holds.tryHold(identifier)) {
      rateLimitRefusals.inc({ limit: counter.policy.name });
      const wait = String(Math.ceil(ms / 1000));
      throw new AppError('rate_limited', `Too many failed authentications; retry after ${wait} s`, undefined, { 'Retry-After': wait });
    }
    try {
      await sleep(ms);
    } finally {
      this.holds.release(identifier);
    }
  }
}

// The address first: it never holds the separator (a socket address or one our proxy wrote), so keys cannot collide.
const pairKey = (identifier: string, address: string) => `${address}|${identifier}`;
