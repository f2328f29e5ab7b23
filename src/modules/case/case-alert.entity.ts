import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedJob } from '../business/index.js';
import { GuestCase } from './case.entity.js';
import { AlertRecipient } from '../alert/index.js';

/**
 * alert: one recipient's message about a new case; escalation: one owner's message about an urgent case nobody
 * took; check: the scheduled look, when `escalateAfterMinutes` have passed, at whether the case still needs one.
 */
const CASE_ALERT_KINDS = ['alert', 'escalation', 'check'] as const;
export type CaseAlertKind = (typeof CASE_ALERT_KINDS)[number];
/**
 * pending until done: sent, failed (out of attempts, or refused for good), or skipped (a check that found the case
 * taken, an alert whose outside recipient declined after it was queued).
 */
export type CaseAlertStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/**
 * The case's alerts, each its own job, written in the transaction of the answer that opened the case: due while
 * `dueAt` is set, leased to one worker while `lockedUntil` is ahead (FOR UPDATE SKIP LOCKED). One row per recipient,
 * so a retry never repeats a message another recipient already has; the unique key keeps a recipient to one message
 * of each kind per case however many rules name them.
 */
@Entity({ tableName: 'case_alert' })
@Unique({ name: 'case_alert_recipient_uq', properties: ['case', 'kind', 'channel', 'address'] })
@Index({ name: 'case_alert_due_idx', expression: 'create index "case_alert_due_idx" on "case_alert" ("due_at") where "due_at" is not null' })
export class CaseAlert extends BusinessOwnedJob {
  id = newId('caseAlert');

  @ManyToOne(() => GuestCase, { mapToPk: true, deleteRule: 'cascade' }) case!: string;
  @Property({ type: 'string', length: 12 }) kind!: CaseAlertKind;

  /** email or sms; '' for a check (it finds the owners when due). */
  @Property({ type: 'string', length: 10 }) channel!: string;

  /** The recipient's e-mail address or phone number ('' for a check). */
  @Property({ type: 'string', length: 320 }) address!: string;

  /** The outside recipient it goes to (null: a member): sent only while that recipient's confirmation stands. */
  @ManyToOne(() => AlertRecipient, { mapToPk: true, nullable: true, deleteRule: 'cascade' }) recipient?: string | null;

  /** What matched for this recipient's rules ("Taste 2 of 10; keyword: cold"). */
  @Property({ type: 'string', length: 300 }) reason!: string;
  @Property({ type: 'string', length: 10 }) status: Opt<CaseAlertStatus> = 'pending';
}
