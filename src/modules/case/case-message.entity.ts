import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedJob } from '../business/index.js';
import { GuestCase } from './case.entity.js';

export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
const MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * One message of a case's thread: the restaurant's reply to the guest (`out`) or the guest's SMS back (`in`). An
 * outbound message is also its own job: due while `dueAt` is set, leased to one worker while `lockedUntil` is ahead
 * (FOR UPDATE SKIP LOCKED), so a reply written in a transaction is sent after it commits, even across a restart.
 */
@Entity({ tableName: 'case_message' })
@Index({ name: 'case_message_case_created_idx', properties: ['case', 'createdAt', 'id'] })
@Index({ name: 'case_message_due_idx', expression: 'create index "case_message_due_idx" on "case_message" ("due_at") where "due_at" is not null' })
// An inbound SMS is matched to the case threads that texted its number (inbound-sms.rules.ts).
@Index({
  name: 'case_message_sms_address_idx',
  expression: `create index "case_message_sms_address_idx" on "case_message" ("address", "created_at") where "direction" = 'out' and "channel" = 'sms'`,
})
export class CaseMessage extends BusinessOwnedJob {
  id = newId('caseMessage');

  @ManyToOne(() => GuestCase, { mapToPk: true, deleteRule: 'cascade' }) case!: string;
  @Property({ type: 'string', length: 3 }) direction!: 'out' | 'in';
  @Property({ type: 'string', length: 10 }) channel!: MessageChannel;
  @Property({ type: 'text' }) body!: string;
  @Property({ type: 'string', length: 10 }) status: Opt<MessageStatus> = 'queued';

  /** The user who wrote an outbound message (null: the API without a user, or the guest). */
  @Property({ type: 'string', length: 40, nullable: true }) author?: string | null;

  /** The guest's address or number it went to (or came from), as the case had it then. */
  @Property({ type: 'string', length: 320 }) address!: string;

  /** The e-mail's Message-ID (with its angle brackets): the next reply's In-Reply-To. */
  @Property({ type: 'string', length: 200, nullable: true }) messageId?: string | null;
}
