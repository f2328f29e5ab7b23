import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';

/** A reply the business saves to answer unhappy guests quickly (the Inbox's reply box offers them). */
@Entity({ tableName: 'reply_template' })
@Index({ name: 'reply_template_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class ReplyTemplate extends BusinessOwnedEntity {
  id = newId('replyTemplate');

  @Property({ type: 'string', length: 100 }) name!: string;
  @Property({ type: 'text' }) body!: string;
}
