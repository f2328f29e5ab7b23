import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { randomBytesPooled } from '../../shared/random.js';
import { BusinessOwnedJob } from '../business/index.js';

/** pending: asked (or about to be), told nothing else; confirmed: alerted; declined: never messaged by the business again. */
const CONSENT_STATUSES = ['pending', 'confirmed', 'declined'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** The link's key: 128 random bits, short enough for an SMS. */
export const newConsentToken = () => randomBytesPooled(16).toString('base64url');

/**
 * An address or number outside the business that an alert rule names, and its answer: one row per business, channel
 * and address, whatever number of rules name it, kept when the rules go (a declined address stays declined). The
 * row is also the outbox job of its one confirmation message (due while `dueAt` is set, leased as case alerts are),
 * written in the transaction of the rule that first named it; it is never queued again.
 */
@Entity({ tableName: 'alert_recipient' })
@Unique({ name: 'alert_recipient_address_uq', properties: ['business', 'channel', 'address'] })
@Index({ name: 'alert_recipient_due_idx', expression: 'create index "alert_recipient_due_idx" on "alert_recipient" ("due_at") where "due_at" is not null' })
export class AlertRecipient extends BusinessOwnedJob {
  id = newId('alertRecipient');

  /** email or sms. */
  @Property({ type: 'string', length: 10 }) channel!: string;

  /** Normalised as rules store it: an e-mail address in lower case, a phone number in E.164. */
  @Property({ type: 'string', length: 320 }) address!: string;

  @Property({ type: 'string', length: 10 }) status: Opt<ConsentStatus> = 'pending';

  /** The confirmation page's key (`/alerts/{token}`), also in every alert's stop link. */
  @Unique({ name: 'alert_recipient_token_uq' })
  @Property({ type: 'string', length: 64 })
  token: Opt<string> = newConsentToken();

  @Property({ type: 'datetime', length: 3, nullable: true }) confirmedAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) declinedAt?: Date | null;
}
