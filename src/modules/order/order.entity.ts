import type { Opt } from '@mikro-orm/core';
import { DecimalType } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';

export const ORDER_STATUSES = ['PENDING', 'ACCEPTED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
const ORDER_SOURCES = ['api', 'custom'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];
export const ORDER_CHANNELS = ['WEBSITE', 'ANDROID', 'IOS', 'CALL-IN', 'QR', 'FOODPANDA', 'GOLOOTLO', 'OTHER'] as const;
export type OrderChannel = (typeof ORDER_CHANNELS)[number];

/** Money: numeric in the database (never float), a JS number in the API, in the order's currency. */
export const decimal = (precision = 19, scale = 4) => ({ type: new DecimalType('number'), precision, scale }) as const;
export const money = () => decimal();

@Entity({ tableName: 'customer_order' })
// Idempotency key of the custom webhook (interface 4.9): a missing location id counts as '' so "order id only" is unique too.
@Index({
  name: 'customer_order_external_unique',
  expression:
    'create unique index "customer_order_external_unique" on "customer_order" ("business_id", coalesce("external_location_id", \'\'), "external_order_id")',
})
@Index({ name: 'customer_order_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'customer_order_business_external_order_idx', properties: ['business', 'externalOrderId'] })
export class Order extends BusinessOwnedEntity {
  id = newId('order');

  @Property({ type: 'string', length: 200 }) externalOrderId!: string;
  @Property({ type: 'string', length: 200, nullable: true }) externalLocationId?: string | null;
  @Property({ type: 'string', length: 200, nullable: true }) externalBrandId?: string | null;
  @Enum({ items: () => ORDER_SOURCES }) source!: OrderSource;
  @Enum({ items: () => ORDER_CHANNELS, nullable: true }) channel?: OrderChannel | null;
  @Enum({ items: () => ORDER_STATUSES }) status: Opt<OrderStatus> = 'PENDING';
  @Property({ type: 'string', length: 3 }) currency!: string;
  @Property({ ...money(), nullable: true }) subtotal?: number | null;
  @Property({ ...money(), nullable: true }) deliveryCharge?: number | null;
  @Property(money()) total!: number;
  @Property({ type: 'string', length: 300, nullable: true }) customerName?: string | null;

  /** Normalised (lower-cased, validated); an invalid address is dropped, never stored as given. */
  @Property({ type: 'string', length: 320, nullable: true }) customerEmail?: string | null;

  /** E.164; an invalid number is dropped. */
  @Property({ type: 'string', length: 20, nullable: true }) customerPhone?: string | null;

  /** String to string, stored verbatim. */
  @Property({ type: 'json' }) metadata: Opt<Record<string, string>> = {};
}
