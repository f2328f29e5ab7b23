import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedJob } from '../business/index.js';
import { Order } from '../order/index.js';
import { Survey } from '../survey/index.js';
import { FeedbackFlow } from './feedback-flow.entity.js';

const REQUEST_STATUSES = ['scheduled', 'sent', 'opened', 'completed', 'suppressed', 'failed', 'expired', 'cancelled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/**
 * One ask of one guest about one order, and its own job: due when `dueAt` is set and past (the send, then the
 * reminder, then the expiry), leased to one worker while `lockedUntil` is in the future (FOR UPDATE SKIP LOCKED).
 * A finished request has no `dueAt`, so a cancelled or completed one is simply never due again.
 */
@Entity({ tableName: 'feedback_request' })
@Index({ name: 'feedback_request_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Unique({ name: 'feedback_request_order_flow_unique', properties: ['order', 'flow'] })
@Unique({ name: 'feedback_request_token_unique', properties: ['token'] })
@Index({ name: 'feedback_request_due_idx', expression: 'create index "feedback_request_due_idx" on "feedback_request" ("due_at") where "due_at" is not null' })
@Index({
  name: 'feedback_request_email_idx',
  expression: 'create index "feedback_request_email_idx" on "feedback_request" ("business_id", "email_hash", "created_at") where "email_hash" is not null',
})
@Index({
  name: 'feedback_request_phone_idx',
  expression: 'create index "feedback_request_phone_idx" on "feedback_request" ("phone_hash", "business_id", "created_at") where "phone_hash" is not null',
})
export class FeedbackRequest extends BusinessOwnedJob {
  id = newId('feedbackRequest');

  @ManyToOne(() => FeedbackFlow, { mapToPk: true, deleteRule: 'set null', nullable: true }) flow?: string | null;
  @ManyToOne(() => Order, { mapToPk: true, deleteRule: 'cascade' }) order!: string;
  @ManyToOne(() => Survey, { mapToPk: true, deleteRule: 'cascade' }) survey!: string;
  @Property({ type: 'string', length: 30 }) trigger!: string;
  @Property({ type: 'string', length: 20 }) status: Opt<RequestStatus> = 'scheduled';

  /** Why it was suppressed or cancelled: throttled, opted_out, no_contact, quiet_hours, order_too_old, answered... */
  @Property({ type: 'string', length: 40, nullable: true }) reason?: string | null;

  /** The channel it was sent on. */
  @Property({ type: 'string', length: 10, nullable: true }) channel?: string | null;

  /** sha256 of the normalised address and number: the throttle's and the opt-out list's key, never the contact itself. */
  @Property({ type: 'string', length: 64, nullable: true }) emailHash?: string | null;
  @Property({ type: 'string', length: 64, nullable: true }) phoneHash?: string | null;

  /** The link's opaque part: {SURVEY_URL}/r/{token}. */
  @Property({ type: 'string', length: 40 }) token!: string;

  /** When it is (or was) to be sent. */
  @Property({ type: 'datetime', length: 3 }) sendAt!: Date;
  @Property({ type: 'datetime', length: 3, nullable: true }) remindedAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) openedAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) completedAt?: Date | null;

  /** The order's time plus the flow's expiresAfterHours: no send, reminder or open after it. */
  @Property({ type: 'datetime', length: 3 }) expiresAt!: Date;
}
