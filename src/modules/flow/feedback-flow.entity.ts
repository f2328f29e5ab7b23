import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Survey } from '../survey/index.js';

export const FLOW_TRIGGERS = ['order.created', 'order.accepted'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];
export const FLOW_CHANNELS = ['email', 'sms'] as const;
export type FlowChannel = (typeof FLOW_CHANNELS)[number];

/** Which orders a flow takes; every key present must hold (AND); none at all matches every order. */
export interface FlowConditions {
  channel?: string[];
  location?: string[];
  minTotal?: number;
  metadata?: Record<string, string>;
  hasEmail?: boolean;
  hasPhone?: boolean;
}

export interface QuietHours {
  from: string;
  to: string;
  /** IANA time zone the hours are read in; absent: the order's location's (else the business's, else UTC). */
  timeZone?: string | null;
}

export interface FlowTemplate {
  subject?: string;
  body: string;
}

/**
 * "After an order, ask the right guest at the right time, once": which orders (trigger, conditions), which survey,
 * by which channels in fallback order, when (delay, quiet hours), and how often at most (throttle). Its requests
 * are FeedbackRequest rows.
 */
@Entity({ tableName: 'feedback_flow' })
@Index({ name: 'feedback_flow_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class FeedbackFlow extends BusinessOwnedEntity {
  id = newId('feedbackFlow');

  @Property({ type: 'string', length: 200 }) name!: string;
  @Property({ type: 'boolean' }) enabled: Opt<boolean> = true;

  /** Lower first: the first enabled flow whose conditions match an order wins. */
  @Property({ type: 'integer' }) priority: Opt<number> = 0;
  @Property({ type: 'string', length: 30 }) trigger: Opt<FlowTrigger> = 'order.created';
  @Property({ type: 'json', nullable: true }) conditions?: FlowConditions | null;
  @ManyToOne(() => Survey, { mapToPk: true, deleteRule: 'cascade' }) survey!: string;
  @Property({ type: 'json' }) channels: Opt<FlowChannel[]> = ['email', 'sms'];
  @Property({ type: 'integer' }) delayMinutes: Opt<number> = 45;
  @Property({ type: 'json', nullable: true }) quietHours?: QuietHours | null;
  @Property({ type: 'integer' }) throttleDays: Opt<number> = 14;
  @Property({ type: 'integer', nullable: true }) reminderAfterHours?: number | null;
  @Property({ type: 'integer' }) expiresAfterHours: Opt<number> = 168;

  /** Per language: {"en": {"subject": "...", "body": "... {{link}} ..."}}. */
  @Property({ type: 'json' }) templates!: Record<string, FlowTemplate>;
}
