import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from './pg-listener.js';
import { SURVEY_PAGES_CHANNEL } from './survey-page.signal.js';
import type { ReadRouting } from './read.routing.js';

/** Values kept at most (the oldest goes first); each is a few KiB. */
const MAX_ENTRIES = 2_000;

/**
 * What the guest pages read again and again, kept in memory (a survey with its steps, metrics and locations; a
 * business's brand): data that changes a few times a day. A write to any table the pages read notifies
 * SURVEY_PAGES_CHANNEL at commit (survey-page.signal.ts) and everything kept is forgotten, in every process
 * listening. Without a working LISTEN connection nothing is kept: each request reads the database, so a lost
 * connection can never leave a page stale. One listening connection serves every kind of value.
 *
 * Its reads are lag-tolerant (a replica's, see read.routing.ts), except within the read-your-writes window after a
 * notification: a value read then from a replica could miss the change notified, and be kept until the next one.
 */
export class SurveyPageMemo {
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
    private readonly reads?: ReadRouting,
  ) {}

  async start() {
    // A notification, a reconnection (anything may have changed meanwhile) and a lost connection all forget.
    this.listener = new PgListener(
      this.orm,
      [SURVEY_PAGES_CHANNEL],
      { notification: () => this.forget(true), ready: () => this.forget(true), lost: () => this.forget(false) },
      this.logger,
      'survey page memo (reading every request meanwhile)',
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
    if (this.reads) await this.reads.lagTolerant(em, performance.now() - this.changedAt < this.reads.windowOf(em));
    return em;
  }

  async stop() {
    this.forget(false);
    await this.listener?.stop();
  }
}
