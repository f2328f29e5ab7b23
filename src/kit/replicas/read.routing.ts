import type { EntityManager } from '@mikro-orm/postgresql';
import { allowReplicaReads, replicaHealthOf } from './replica.driver.js';
import { dbReads } from '../metrics/metrics.js';

/** Who wrote within the read-your-writes window: this process's memory, or every process's through Redis. */
export interface RecentWrites {
  wrote(client: string, windowMs: number): Promise<void>;
  wroteRecently(client: string): Promise<boolean>;
}

/** Entries kept at most (the oldest goes first): each is a client key and a time. */
const MAX_CLIENTS = 100_000;

/** In this process: right for one process, or behind a balancer that keeps each client on one process. */
export class MemoryRecentWrites implements RecentWrites {
  private readonly until = new Map<string, number>();

  async wrote(client: string, windowMs: number): Promise<void> {
    this.until.delete(client);
    if (this.until.size >= MAX_CLIENTS) this.until.delete(this.until.keys().next().value!);
    this.until.set(client, performance.now() + windowMs);
  }

  async wroteRecently(client: string): Promise<boolean> {
    const until = this.until.get(client);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    this.until.delete(client);
    return false;
  }
}

/** The two Redis commands used (ioredis's signatures), so the kit needs no Redis client of its own. */
export interface RedisCommands {
  set(key: string, value: string, mode: 'PX', ms: number): Promise<unknown>;
  exists(key: string): Promise<number>;
}

/**
 * Shared by every process through Redis (REDIS_URL), so a client's read reaching another process than its write still
 * goes to the primary. Redis unreachable: the read goes to the primary too (a write may have been missed).
 */
export class SharedRecentWrites implements RecentWrites {
  private readonly local = new MemoryRecentWrites();

  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix: string,
  ) {}

  async wrote(client: string, windowMs: number): Promise<void> {
    await this.local.wrote(client, windowMs);
    await this.redis.set(`${this.prefix}wrote:${client}`, '1', 'PX', windowMs).catch(() => undefined);
  }

  async wroteRecently(client: string): Promise<boolean> {
    if (await this.local.wroteRecently(client)) return true;
    return this.redis.exists(`${this.prefix}wrote:${client}`).then(
      (n) => n > 0,
      () => true,
    );
  }
}

/**
 * Where lag-tolerant reads go: to a streaming replica (MikroORM's `replicas`, chosen by replica.driver.ts) when one is
 * up and within REPLICA_MAX_LAG, unless the client wrote within the read-your-writes window; else to the primary.
 *
 * The window is REPLICA_MAX_LAG plus how old the health figures a read goes by may be (replica.health.ts `staleness`):
 * a replica is used only while its last check found it at most REPLICA_MAX_LAG behind, so it holds every commit
 * made longer ago than that. A time window rather than WAL positions: it costs no statement after each write and no
 * position to carry from the process that wrote to the one that reads, only a key per client (in Redis when shared).
 */
export class ReadRouting {
  constructor(private readonly recent: RecentWrites = new MemoryRecentWrites()) {}

  /** How long after a client's write its reads stay on the primary (0 without replicas). */
  windowOf(em: EntityManager): number {
    const health = replicaHealthOf(em);
    return health?.configured ? health.maxLagMs + health.staleness : 0;
  }

  /**
   * Lets `em`'s reads (outside its transactions) go to a replica, unless `client` wrote within the window or none is
   * usable. `client`: the caller's key (see clientKey), or `true` when the caller knows of a recent write itself.
   */
  async lagTolerant(em: EntityManager, client?: string | boolean): Promise<'replica' | 'primary'> {
    const health = replicaHealthOf(em);
    let target: 'replica' | 'primary' = 'primary';
    if (health?.configured && client !== true && !(typeof client === 'string' && (await this.recent.wroteRecently(client))) && (await health.ready())) {
      allowReplicaReads(em);
      target = 'replica';
    }
    dbReads.inc({ target });
    return target;
  }

  /** After `client`'s write has committed: its reads go to the primary for the window. Nothing without replicas. */
  async wrote(em: EntityManager, client: string | undefined): Promise<void> {
    const windowMs = this.windowOf(em);
    if (client && windowMs) await this.recent.wrote(client, windowMs);
  }
}
