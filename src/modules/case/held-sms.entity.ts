import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
import type { HeldReason } from './inbound-sms.rules.js';

/**
 * A guest's SMS that could not be tied to one case thread (inbound-sms.rules.ts): kept here for the operator, in no
 * business, until `npm run admin -- held-sms` attaches it to one of its candidate threads or drops it, or its window
 * ends (MAX_HELD_PER_SENDER, inbound-sms.rules.ts, bounds what one number can leave here).
 */
@Entity({ tableName: 'held_sms' })
@Index({ name: 'held_sms_sender_idx', properties: ['sender'] })
@Index({ name: 'held_sms_created_at_idx', properties: ['createdAt'] })
export class HeldSms extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('heldSms');

  /** The number it came from: E.164, or as the provider gave it when it is not a phone number. */
  @Property({ type: 'string', length: 40 }) sender!: string;
  @Property({ type: 'text' }) body!: string;
  @Property({ type: 'string', length: 20 }) reason!: HeldReason;

  /** The case threads that texted the number within the code window: the only ones the operator may attach it to. */
  @Property({ type: 'json' }) candidates!: string[];
}
