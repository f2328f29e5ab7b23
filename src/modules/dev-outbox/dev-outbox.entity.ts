import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';

/**
 * A message kept instead of sent (MAIL_OUTBOX=dev, never in production): an e-mail or a text as it would have gone
 * out, shown at /portal/dev/outbox so a newcomer on one machine can follow every loop without a mail server.
 */
@Entity({ tableName: 'dev_outbox_message' })
@Index({ name: 'dev_outbox_message_created_at_index', properties: ['createdAt'] })
export class DevOutboxMessage {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('devOutboxMessage');
  /** `email` or `sms`. */
  @Property({ type: 'string', length: 8 }) channel!: string;
  /** The From as the mail would carry it (display name and address), or the SMS provider's name. */
  @Property({ type: 'text' }) sender!: string;
  @Property({ type: 'text' }) recipient!: string;
  @Property({ type: 'text', nullable: true }) subject?: string | null;
  @Property({ type: 'text' }) body!: string;
  @Property({ type: 'datetime', length: 3 }) createdAt: Date = new Date();
}
