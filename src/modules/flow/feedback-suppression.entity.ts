import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';

/**
 * The opt-out list: per business and channel, a hash of the normalised e-mail address or phone number (never the
 * contact itself). Fed by the unsubscribe link, an inbound STOP and the API; checked when each message is sent.
 */
@Entity({ tableName: 'feedback_suppression' })
@Unique({ name: 'feedback_suppression_contact_unique', properties: ['business', 'channel', 'hash'] })
export class FeedbackSuppression extends BusinessOwnedEntity {
  id = newId('feedbackSuppression');

  @Property({ type: 'string', length: 10 }) channel!: string;
  @Property({ type: 'string', length: 64 }) hash!: string;

  /** unsubscribe, stop or api. */
  @Property({ type: 'string', length: 20 }) source!: string;
}
