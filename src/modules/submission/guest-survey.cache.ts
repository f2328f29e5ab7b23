import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from '../../kit/pg-listener.js';
import { SURVEY_PAGES_CHANNEL } from '../../kit/survey-page.signal.js';
import { openGuestSurvey, type GuestSurveyState } from './response.service.js';

/** Surveys kept at most (the oldest goes first); each is a few KiB. */
const MAX_ENTRIES = 1_000;

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
  private listener?: PgListener;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  async start() {
    // Kept only while LISTEN is in place: a notification, a reconnection (anything may have changed meanwhile) and a
    // lost connection all forget what is kept.
    this.listener = new PgListener(
      this.orm,
      [SURVEY_PAGES_CHANNEL],
      { notification: () => this.forget(true), ready: () => this.forget(true), lost: () => this.forget(false) },
      this.logger,
      'survey page cache (reading every request meanwhile)',
    );
    await this.listener.start();
  }

  private forget(listening: boolean) {
    this.generation++;
    this.entries.clear();
    this.listening = listening;
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
    this.forget(false);
    await this.listener?.stop();
  }
}
