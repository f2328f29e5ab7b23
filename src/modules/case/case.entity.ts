import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Submission } from '../submission/index.js';
import { Order } from '../order/index.js';
import { Location } from '../location/index.js';
import { Survey } from '../survey/index.js';
import { Membership } from '../user/index.js';
import { AlertRule, ALERT_SEVERITIES, type AlertSeverity } from '../alert/index.js';

export const CASE_STATUSES = ['open', 'replied', 'resolved', 'recovered'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/**
 * An unhappy guest's answer that a rule matched, followed until the restaurant has answered and, ideally, the guest
 * came back. One per submission: the unique constraint decides when completions race.
 */
@Entity({ tableName: 'guest_case' })
@Unique({ name: 'guest_case_submission_uq', properties: ['submission'] })
@Index({ name: 'guest_case_business_created_idx', properties: ['business', 'createdAt', 'id'] })
// The came-back check on every order: only a business's cases still waiting for the guest (not yet recovered) are looked at.
@Index({
  name: 'guest_case_business_waiting_idx',
  expression: `create index "guest_case_business_waiting_idx" on "guest_case" ("business_id", "opened_at") where "status" in ('open', 'replied', 'resolved')`,
})
export class GuestCase extends BusinessOwnedEntity {
  id = newId('guestCase');

  @ManyToOne(() => Submission, { mapToPk: true, deleteRule: 'cascade' }) submission!: string;
  @ManyToOne(() => Order, { mapToPk: true, nullable: true, deleteRule: 'set null' }) order?: string | null;
  @ManyToOne(() => Location, { mapToPk: true, nullable: true, deleteRule: 'set null' }) location?: string | null;
  @ManyToOne(() => Survey, { mapToPk: true, nullable: true, deleteRule: 'set null' }) survey?: string | null;

  /** The rule that opened it (the first urgent one, else the oldest); null once that rule is deleted. */
  @ManyToOne(() => AlertRule, { mapToPk: true, nullable: true, deleteRule: 'set null' }) rule?: string | null;
  @Enum({ items: () => ALERT_SEVERITIES }) severity!: AlertSeverity;
  @Enum({ items: () => CASE_STATUSES }) status: Opt<CaseStatus> = 'open';
  @ManyToOne(() => Membership, { mapToPk: true, nullable: true, deleteRule: 'set null' }) assignee?: string | null;
  @Property({ type: 'string', length: 300 }) reason!: string;
  @Property({ type: 'string', length: 300, nullable: true }) guestName?: string | null;
  @Property({ type: 'string', length: 320, nullable: true }) guestEmail?: string | null;
  @Property({ type: 'string', length: 20, nullable: true }) guestPhone?: string | null;
  @Property({ type: 'datetime', length: 3 }) openedAt!: Date;
  @Property({ type: 'datetime', length: 3, nullable: true }) firstReplyAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) resolvedAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) recoveredAt?: Date | null;

  /** The order that recovered it (the guest came back), and the offer it redeemed if any. */
  @ManyToOne(() => Order, { mapToPk: true, nullable: true, deleteRule: 'set null' }) recoveredOrder?: string | null;
  @Property({ type: 'string', length: 40, nullable: true }) recoveredOffer?: string | null;
}
