import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from '../../kit/pg-listener.js';
import { SURVEY_PAGES_CHANNEL } from '../../kit/survey-page.signal.js';
import { isId } from '../../shared/id.js';
import { Business } from './business.entity.js';
import { logoPath } from './brand.rules.js';

/** What the guest sees of a business: its name, colour, logo (a path on this service) and review link. */
export interface GuestBrand {
  name: string;
  color: string | null;
  logo: string | null;
  reviewUrl: string | null;
}

const MAX_ENTRIES = 1_000;

/** The brand of a business, read from the database. */
export async function readBrand(em: EntityManager, business: string): Promise<GuestBrand | null> {
  if (!isId('business', business)) return null;
  const row = await em.findOne(Business, { id: business }, { fields: ['name', 'displayName', 'brandColor', 'logoFile', 'reviewUrl'], disableIdentityMap: true });
  if (!row) return null;
  return { name: row.displayName || row.name, color: row.brandColor ?? null, logo: row.logoFile ? logoPath(business, row.logoFile) : null, reviewUrl: row.reviewUrl ?? null };
}

/**
 * Brands the guest pages show, kept in memory like their surveys (submission/guest-survey.cache.ts): a write to the
 * business table notifies SURVEY_PAGES_CHANNEL at commit and everything kept is forgotten. Without a working LISTEN
 * connection nothing is kept, so a page is never stale.
 */
export class BrandCache {
  private readonly entries = new Map<string, GuestBrand | null>();
  private generation = 0;
  private listening = false;
  private listener?: PgListener;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  async start() {
    this.listener = new PgListener(
      this.orm,
      [SURVEY_PAGES_CHANNEL],
      { notification: () => this.forget(true), ready: () => this.forget(true), lost: () => this.forget(false) },
      this.logger,
      'brand cache (reading every request meanwhile)',
    );
    await this.listener.start();
  }

  private forget(listening: boolean) {
    this.generation++;
    this.entries.clear();
    this.listening = listening;
  }

  async get(em: EntityManager, business: string): Promise<GuestBrand | null> {
    if (!this.listening) return readBrand(em, business);
    const kept = this.entries.get(business);
    if (kept !== undefined) return kept;
    const generation = this.generation;
    const brand = await readBrand(em, business);
    if (generation === this.generation && this.listening) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(business, brand);
    }
    return brand;
  }

  async stop() {
    this.forget(false);
    await this.listener?.stop();
  }
}
