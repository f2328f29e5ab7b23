import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { MenuItem } from '../menu/index.js';
import { Order, decimal, money } from './order.entity.js';

@Entity({ tableName: 'order_item' })
@Index({ name: 'order_item_order_position_idx', properties: ['order', 'position'] })
@Index({ name: 'order_item_menu_item_idx', properties: ['menuItem'] })
export class OrderItem extends BusinessOwnedEntity {
  id = newId('orderItem');

  @ManyToOne(() => Order, { mapToPk: true, deleteRule: 'cascade' }) order!: string;

  /** Line order as sent. */
  @Property({ type: 'integer' }) position!: number;
  @ManyToOne(() => MenuItem, { mapToPk: true, nullable: true, deleteRule: 'set null' }) menuItem?: string | null;

  /** The sender's `itemId`. */
  @Property({ type: 'string', length: 200, nullable: true }) externalItemId?: string | null;
  @Property({ type: 'string', length: 300, nullable: true }) name?: string | null;
  @Property({ type: 'integer', nullable: true }) quantity?: number | null;
  @Property({ ...money(), nullable: true }) unitPrice?: number | null;
  @Property({ ...money(), nullable: true }) totalPrice?: number | null;
  @Property({ ...decimal(7, 4), nullable: true }) salesTaxPercent?: number | null;
  @Property({ ...money(), nullable: true }) salesTaxAmount?: number | null;
  @Property({ type: 'text', nullable: true }) itemComment?: string | null;
}
