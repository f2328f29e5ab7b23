import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { newId } from '../../shared/id.js';
import { Business } from '../business/business.entity.js';

/** An immutable record of a change, written in the transaction of the change itself. */
@Entity({ tableName: 'event' })
@Index({ name: 'event_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'event_business_type_created_idx', properties: ['business', 'type', 'createdAt'] })
export class Event {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('event');

  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' })
  business!: string;

  /** e.g. `order.created`, `survey.updated`. */
  @Property({ type: 'string', length: 100 })
  type!: string;

  /** {object: <the resource as the API shows it>} */
  @Property({ type: 'json' })
  data!: Record<string, unknown>;

  @Property({ type: 'datetime', length: 3 })
  createdAt: Date = new Date();
}
