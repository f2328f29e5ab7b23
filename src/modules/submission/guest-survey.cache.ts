import type { EntityManager, MikroORM, PostgreSqlConnection } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import { SURVEY_PAGES_CHANNEL } from '../survey/survey-page.signal.js';
import { openGuestSurvey, type GuestSurveyState } from './response.service.js';

/** Surveys kept at most (the oldest goes first); each is a few KiB. */
const MAX_ENTRIES = 1_000;
const RECONNECT_MS = 2_000;

/**
 * The surveys the guest pages serve, as openGuestSurvey answers them, kept in memory: every page view and step post
 * read its survey, steps, metrics and locations, a statement (with three subqueries) per request, for data that
 * changes a few times a day. A write to any of those tables notifies SURVEY_PAGES_CHANNEL at commit and the whole
 * cache is forgotten, in every process listening. Without a working LISTEN connection nothing is kept: each request
 * reads the database, as before, so a lost connection can never leave a page stale.
 */
export class GuestSurveyCache {
  private readonly entries = new Map<string, GuestSurveyState>();
  /** Bumped by every notification: a read begun before it may be stale, and is not kept. */
  private generation = 0;
  private listening = false;
  private stopped = false;
  private listener?: pg.Client;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  async start() {
    const pool = (await (this.orm.em.getConnection() as PostgreSqlConnection).getNativeClient()) as pg.Pool;
    const connect = async () => {
      if (this.stopped) return;
      const client = new pg.Client(pool.options as pg.ClientConfig);
      const lost = (err?: unknown) => {
        if (this.listener !== client) return;
        this.listener = undefined;
        this.forget(false);
        if (!this.stopped) {
          if (err) this.logger.warn({ err }, 'survey page cache: notifications lost; reading every request until reconnected');
          this.retry = setTimeout(() => void connect(), RECONNECT_MS).unref();
        }
      };
      client.on('notification', () => this.forget(true));
      client.on('error', lost);
      client.on('end', () => lost());
      this.listener = client;
      try {
        await client.connect();
        await client.query(`listen ${SURVEY_PAGES_CHANNEL}`);
        if (this.listener === client) this.listening = true;
      } catch (err) {
        lost(err);
        await client.end().catch(() => {});
      }
    };
    await connect();
  }

  private forget(listening: boolean) {
    this.generation++;
    this.entries.clear();
    this.listening = listening && !!this.listener;
  }

  /** The survey as openGuestSurvey answers it, from memory when it has not changed since it was read. */
  async open(em: EntityManager, business: string, survey: string): Promise<GuestSurveyState> {
    if (!this.listening) return openGuestSurvey(em, business, survey);
    const key = `${business}/${survey}`;
    const kept = this.entries.get(key);
    if (kept) return kept;
    const generation = this.generation;
    const state = await openGuestSurvey(em, business, survey);
    if (generation === this.generation && this.listening) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, state);
    }
    return state;
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.listener;
    this.listener = undefined;
    this.forget(false);
    // Closing a connection never holds up a shutdown for long: after a second the socket is simply dropped.
    await Promise.race([client?.end().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }
}
