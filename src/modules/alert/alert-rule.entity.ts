import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import type { SentimentLabel } from '../text/index.js';

export const ALERT_SEVERITIES = ['normal', 'urgent'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** What a completed submission (or, for themes and sentiment, its analysis) must show to match: any one of the kinds given, within the locations and surveys given. */
export interface AlertWhen {
  maxRating?: number;
  maxNps?: number;
  keywords?: string[];
  /** Themes of a text answer as the workers read it (built in or the business's own): matched once it is analysed. */
  themes?: string[];
  /** With `themes`: a theme read with this sentiment; alone: a text answer read so as a whole. */
  sentiment?: SentimentLabel;
  locations?: string[];
  surveys?: string[];
}

/**
 * Who hears of a match: a member (their membership's id), every member with a role (both at their account's e-mail),
 * or an address of a channel outside the business, told only once it confirmed (alert-recipient.entity.ts).
 */
export type AlertRecipient = { member: string } | { role: 'owner' | 'manager' } | { channel: 'email' | 'sms'; to: string };

@Entity({ tableName: 'alert_rule' })
@Index({ name: 'alert_rule_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class AlertRule extends BusinessOwnedEntity {
  id = newId('alertRule');

  @Property({ type: 'string', length: 200 }) name!: string;
  @Property({ type: 'boolean' }) enabled: Opt<boolean> = true;
  @Enum({ items: () => ALERT_SEVERITIES }) severity: Opt<AlertSeverity> = 'normal';
  @Property({ type: 'json' }) when!: AlertWhen;
  @Property({ type: 'json' }) notify!: AlertRecipient[];

  /** An urgent case still open and unassigned this long after it opened notifies the owners, once. */
  @Property({ type: 'integer', nullable: true }) escalateAfterMinutes?: number | null;
}
