import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
// Its writes, and its owned tables', tell the survey pages' memos after commit.
import './survey-page.signal.js';

/** A write tells `survey_pages` after commit (modules/business/survey-page.signal.ts): the guest pages show the brand (issue 36). */
@Entity({ tableName: 'business' })
export class Business extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('business');
  @Property({ type: 'string', length: 200 }) name!: string;

  /** ISO 3166-1 alpha-2; the default region for phone numbers written without a country code. */
  @Property({ type: 'string', length: 2, nullable: true }) country?: string | null;

  /** IANA name: the default time zone of its locations (analytics days); unset means UTC. */
  @Property({ type: 'string', length: 64, nullable: true }) timeZone?: string | null;

  /** The order `metadata` key that names the server or cashier (orders' `staff`, analytics by staff; issue 36). */
  @Property({ type: 'string', length: 100, default: 'server' }) staffKey: Opt<string> = 'server';

  /** What guests see (survey pages, e-mail From, SMS); unset means `name`. */
  @Property({ type: 'string', length: 80, nullable: true }) displayName?: string | null;

  /** `#RRGGBB`, dark enough for white text (WCAG AA 4.5:1): the guest pages' buttons and focus rings. */
  @Property({ type: 'string', length: 7, nullable: true }) brandColor?: string | null;

  /** The current logo's address part `<sha256 hex>.<png|jpg|webp>`; its bytes are in business_logo. */
  @Property({ type: 'string', length: 80, nullable: true }) logoFile?: string | null;

  /** https: where the thank-you page sends every guest to review the business (a survey's own reviewUrl wins). */
  @Property({ type: 'string', length: 2000, nullable: true }) reviewUrl?: string | null;

  /** Reply-To of feedback e-mails. */
  @Property({ type: 'string', length: 254, nullable: true }) replyTo?: string | null;
}
