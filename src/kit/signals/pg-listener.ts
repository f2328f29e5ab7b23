import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import { ormPool } from '../db/db.js';

const RECONNECT_MS = 2_000;

/** The listening connection's application_name: how an operator (or a test) finds it in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'feedback-service listener';

export interface ListenerHandlers {
  /** A notification on `channel`, with its payload ('' when none). */
  notification(channel: string, payload: string): void;
  /** LISTEN is in place (at start and after every reconnection): anything missed meanwhile should be caught up. */
  ready?(): void;
  /** The connection is gone: until `ready` again, notifications are lost. */
  lost?(): void;
}

/**
 * The process's one LISTEN connection (per ORM), shared by every PgListener: each connection listening is one more
 * backend PostgreSQL wakes at every NOTIFY of the database. It also marks what this process sends (signals.ts) with
 * an origin, so that its own notifications, already handed to its listeners in-process, are not heard twice.
 */
export class ListenHub {
  /** Prefixed to every payload this process sends: `@<origin> <payload>`. */
  readonly origin = randomBytes(6).toString('base64url');
  private readonly listeners = new Set<PgListener>();
  private client?: pg.Client;
  private listened = new Set<string>();
  /** The listeners whose LISTEN the connection up now was asked for, and those for which it is in place. */
  private readied = new Set<PgListener>();
  private inPlace = new Set<PgListener>();
  private connecting?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private up = false;

  private constructor(private readonly em: EntityManager) {}

  private static readonly hubs = new WeakMap<object, ListenHub>();

  /** The hub of `em`'s ORM (forks share their ORM's configuration object). */
  static of(em: EntityManager): ListenHub {
    let hub = ListenHub.hubs.get(em.config);
    if (!hub) ListenHub.hubs.set(em.config, (hub = new ListenHub(em)));
    return hub;
  }

  /** Hands a notification sent by this process to its own listeners of `channel`, without a round trip. */
  deliverLocally(channel: string, payload: string) {
    for (const l of this.listeners) if (l.channels.includes(channel)) l.notify(channel, payload);
  }

  async add(listener: PgListener): Promise<void> {
    this.listeners.add(listener);
    await this.connect();
    await this.ready(listener);
  }

  /** LISTEN for `listener`'s channels on the connection up now, then its ready(); once per connection. */
  private async ready(listener: PgListener) {
    const client = this.client;
    if (!this.up || !client || this.readied.has(listener) || !this.listeners.has(listener)) return;
    this.readied.add(listener);
    try {
      await this.listen(client, listener.channels);
    } catch {
      return; // the connection is failing: 'error' or 'end' reconnects, and ready() follows
    }
    if (this.client !== client) return;
    this.inPlace.add(listener);
    listener.handlers.ready?.();
  }

  /** Whether `listener`'s LISTEN is in place now. */
  listeningFor(listener: PgListener): boolean {
    return this.up && this.inPlace.has(listener);
  }

  async remove(listener: PgListener): Promise<void> {
    this.listeners.delete(listener);
    this.readied.delete(listener);
    this.inPlace.delete(listener);
    if (this.listeners.size) return;
    clearTimeout(this.retry);
    const client = this.client;
    this.forgetConnection();
    // Closing a connection never holds up a shutdown for long: after a second the socket is simply dropped.
    await Promise.race([client?.end().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }

  /** The connection is gone (closed or lost): no LISTEN is in place any more, for anyone. */
  private forgetConnection() {
    this.client = undefined;
    this.up = false;
    this.listened = new Set();
    this.readied = new Set();
    this.inPlace = new Set();
  }

  private async listen(client: pg.Client, channels: readonly string[]) {
    for (const channel of channels) {
      if (this.listened.has(channel)) continue;
      await client.query(`listen ${channel}`);
      this.listened.add(channel);
    }
  }

  private connect(): Promise<void> {
    return (this.connecting ??= this.open().finally(() => (this.connecting = undefined)));
  }

  private async open(): Promise<void> {
    if (!this.listeners.size || this.client) return;
    const pool = await ormPool(this.em);
    // The pool keeps its password out of its enumerable options (so that they log safely): copied by name.
    const options = pool.options as pg.ClientConfig;
    const client = new pg.Client({ ...options, password: options.password, application_name: LISTENER_APPLICATION_NAME });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      const wasUp = this.up;
      this.forgetConnection();
      if (wasUp) for (const l of this.listeners) l.handlers.lost?.();
      if (!this.listeners.size) return;
      if (err) for (const l of this.listeners) l.logger.warn({ err }, `${l.name}: notifications lost until reconnected`);
      this.retry = setTimeout(() => void this.connect(), RECONNECT_MS).unref();
    };
    client.on('notification', (n) => this.heard(n.channel, n.payload ?? ''));
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      if (this.client !== client) return;
      this.up = true;
      // Every listener, those added while this connected too.
      for (const l of [...this.listeners]) await this.ready(l);
    } catch (err) {
      lost(err);
      await client.end().catch(() => {});
    }
  }

  /** A notification from the database: this process's own were delivered in-process already. */
  private heard(channel: string, payload: string) {
    let body = payload;
    if (payload.startsWith('@')) {
      const space = payload.indexOf(' ');
      const origin = space < 0 ? payload.slice(1) : payload.slice(1, space);
      if (origin === this.origin) return;
      body = space < 0 ? '' : payload.slice(space + 1);
    }
    for (const l of this.listeners) if (l.channels.includes(channel)) l.notify(channel, body);
  }
}

/**
 * Notifications on some channels, through the process's one LISTEN connection (ListenHub), which reconnects every
 * 2 s when it is lost (a pooled connection would be handed to queries and its LISTEN lost). NOTIFY is delivered at
 * commit, to every process listening, which is how one process learns of what another wrote; what this process
 * itself signals (signals.ts) reaches its listeners in-process.
 */
export class PgListener {
  private hub?: ListenHub;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    readonly channels: string[],
    readonly handlers: ListenerHandlers,
    readonly logger: Logger,
    readonly name: string,
  ) {}

  get listening(): boolean {
    return !this.stopped && !!this.hub?.listeningFor(this);
  }

  /** Listening once it resolves, or reconnecting in the background when the database cannot be reached. */
  async start(): Promise<void> {
    this.hub = ListenHub.of(this.orm.em);
    await this.hub.add(this);
  }

  notify(channel: string, payload: string) {
    if (this.stopped) return;
    try {
      this.handlers.notification(channel, payload);
    } catch (err) {
      this.logger.error({ err, channel }, `${this.name}: a notification's handler failed`);
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.hub?.remove(this);
  }
}
