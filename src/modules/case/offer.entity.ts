import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Order } from '../order/index.js';
import { GuestCase } from './case.entity.js';

/** A winback offer made to an unhappy guest: its code, redeemed once by a later order that carries it. */
@Entity({ tableName: 'offer' })
@Unique({ name: 'offer_business_code_uq', properties: ['business', 'code'] })
@Index({ name: 'offer_case_idx', properties: ['case', 'createdAt', 'id'] })
export class Offer extends BusinessOwnedEntity {
  id = newId('offer');

  @ManyToOne(() => GuestCase, { mapToPk: true, deleteRule: 'cascade' }) case!: string;
  @Property({ type: 'string', length: 500 }) description!: string;

  /** Upper case, from an alphabet without look-alikes; orders' metadata values are compared in upper case. */
  @Property({ type: 'string', length: 32 }) code!: string;
  @Property({ type: 'datetime', length: 3 }) expiresAt!: Date;
  @Property({ type: 'datetime', length: 3, nullable: true }) redeemedAt?: Date | null;
  @ManyToOne(() => Order, { mapToPk: true, nullable: true, deleteRule: 'set null' }) redeemedOrder?: string | null;
}
