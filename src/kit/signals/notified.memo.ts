import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from './pg-listener.js';
import type { ReadRouting } from '../replicas/read.routing.js';

/** Values kept at most (the oldest goes first); each is a few KiB. */
const MAX_ENTRIES = 2_000;

/**
 * Values read again and again that change a few times a day (a survey page's survey, steps, metrics and locations; a
 * business's brand; the webhook door's secret hash), kept in memory. A write to any table they come from notifies
 * one of `channels` at commit (survey-page.signal.ts, webhook-account.signal.ts) and everything kept is forgotten, in
 * every process listening (this process's own writes are heard at once: kit/signals/signals.ts). Without a working LISTEN
 * connection nothing is kept: each call reads the database, so a lost connection can never leave a value stale.
 *
 * With `reads`, its reads are lag-tolerant (a replica's, see read.routing.ts), except within the read-your-writes
 * window after a notification: a value read then from a replica could miss the change notified, and be kept until the
 * next one. Without, they are the primary's.
 */
export class NotifiedMemo {
  private readonly entries = new Map<string, unknown>();
  /** Bumped by every notification: a read begun before it may be stale, and is not kept. */
  private generation = 0;
  private listening = false;
  private listener?: PgListener;
  /** When the last notification (or reconnection) came: the tables' last known change. */
  private changedAt = -Infinity;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    private readonly options: { channels: string[]; reads?: ReadRouting; name: string },
  ) {}

  async start() {
    // A notification, a reconnection (anything may have changed meanwhile) and a lost connection all forget.
    this.listener = new PgListener(
      this.orm,
      this.options.channels,
      { notification: () => this.forget(true), ready: () => this.forget(true), lost: () => this.forget(false) },
      this.logger,
      `${this.options.name} (reading every request meanwhile)`,
    );
    await this.listener.start();
  }

  private forget(listening: boolean) {
    this.changedAt = performance.now();
    this.generation++;
    this.entries.clear();
    this.listening = listening;
  }

  /** The value of `key`, from memory when nothing changed since `read` answered it (on an EntityManager of its own). */
  async get<V>(key: string, read: (em: EntityManager) => Promise<V>): Promise<V> {
    if (!this.listening) return read(await this.readerEm());
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const generation = this.generation;
    const value = await read(await this.readerEm());
    if (generation === this.generation && this.listening) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, value);
    }
    return value;
  }

  private async readerEm(): Promise<EntityManager> {
    const em = this.orm.em.fork();
    const { reads } = this.options;
    if (reads) await reads.lagTolerant(em, performance.now() - this.changedAt < reads.windowOf(em));
    return em;
  }

  async stop() {
    this.forget(false);
    await this.listener?.stop();
  }
}
