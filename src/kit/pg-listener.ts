import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import { ormPool } from './db.js';

const RECONNECT_MS = 2_000;

export interface ListenerHandlers {
  /** A notification on `channel`, with its payload ('' when none). */
  notification(channel: string, payload: string): void;
  /** LISTEN is in place (at start and after every reconnection): anything missed meanwhile should be caught up. */
  ready?(): void;
  /** The connection is gone: until `ready` again, notifications are lost. */
  lost?(): void;
}

/**
 * A dedicated PostgreSQL connection that LISTENs on some channels, reconnecting every 2 s when it is lost (a pooled
 * connection would be handed to queries and its LISTEN lost). NOTIFY is delivered at commit, to every process
 * listening, which is how one process learns of what another wrote.
 */
export class PgListener {
  private client?: pg.Client;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly channels: string[],
    private readonly handlers: ListenerHandlers,
    private readonly logger: Logger,
    private readonly name: string,
  ) {}

  get listening(): boolean {
    return !!this.client && !this.stopped;
  }

  async start(): Promise<void> {
    const pool = await ormPool(this.orm.em);
    const connect = async () => {
      if (this.stopped) return;
      const client = new pg.Client(pool.options as pg.ClientConfig);
      let up = false;
      const lost = (err?: unknown) => {
        if (this.client !== client) return;
        this.client = undefined;
        if (up) this.handlers.lost?.();
        if (!this.stopped) {
          if (err) this.logger.warn({ err }, `${this.name}: notifications lost until reconnected`);
          this.retry = setTimeout(() => void connect(), RECONNECT_MS).unref();
        }
      };
      client.on('notification', (n) => this.handlers.notification(n.channel, n.payload ?? ''));
      client.on('error', lost);
      client.on('end', () => lost());
      this.client = client;
      try {
        await client.connect();
        for (const channel of this.channels) await client.query(`listen ${channel}`);
        if (this.client === client) {
          up = true;
          this.handlers.ready?.();
        }
      } catch (err) {
        lost(err);
        await client.end().catch(() => {});
      }
    };
    await connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    // Closing a connection never holds up a shutdown for long: after a second the socket is simply dropped.
    await Promise.race([client?.end().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }
}
