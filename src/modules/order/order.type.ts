import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ORDER_STATUSES, type OrderChannel, type OrderSource, type OrderStatus } from './order.entity.js';
import { ResourceType } from '../../kit/graphql/resource.type.js';

export const OrderStatusEnum = Object.fromEntries(ORDER_STATUSES.map((s) => [s, s])) as { [K in OrderStatus]: K };
registerEnumType(OrderStatusEnum, { name: 'OrderStatus', description: 'PENDING until paid; nothing moves an order out of ACCEPTED.' });

@ObjectType('OrderItem', { simpleResolvers: true, description: 'A line of an order, as sent; written once, when the order is created.' })
export class OrderItemType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "orderitem".' })
  object!: string;

  business!: string;
  /** The menu item's id; GraphQL resolves it to the object. */
  menuItem?: string | null;

  @Field(() => Int)
  position!: number;

  @Field(() => String, { nullable: true, description: "The sender's product id." })
  itemId?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => Int, { nullable: true })
  quantity?: number | null;

  @Field(() => Float, { nullable: true })
  unitPrice?: number | null;

  @Field(() => Float, { nullable: true })
  totalPrice?: number | null;

  @Field(() => Float, { nullable: true })
  salesTaxPercent?: number | null;

  @Field(() => Float, { nullable: true })
  salesTaxAmount?: number | null;

  @Field(() => String, { nullable: true })
  itemComment?: string | null;
}

@ObjectType('Order', { simpleResolvers: true, description: 'A customer order, from the API (`source: api`) or the custom webhook (`custom`).' })
export class OrderType extends ResourceType {
  business!: string;

  @Field()
  externalOrderId!: string;

  @Field(() => String, { nullable: true })
  externalLocationId?: string | null;

  @Field(() => String, { nullable: true })
  externalBrandId?: string | null;

  @Field(() => String, { description: '`api` or `custom`.' })
  source!: OrderSource;

  @Field(() => String, { nullable: true, description: 'WEBSITE ANDROID IOS CALL-IN QR FOODPANDA GOLOOTLO or OTHER.' })
  channel?: OrderChannel | null;

  @Field(() => OrderStatusEnum)
  status!: OrderStatus;

  @Field({ description: 'ISO 4217.' })
  currency!: string;

  @Field(() => Float, { nullable: true })
  subtotal?: number | null;

  @Field(() => Float, { nullable: true })
  deliveryCharge?: number | null;

  @Field(() => Float)
  total!: number;

  @Field(() => String, { nullable: true })
  customerName?: string | null;

  @Field(() => String, { nullable: true, description: 'Lower-cased; an invalid address is dropped.' })
  customerEmail?: string | null;

  @Field(() => String, { nullable: true, description: 'E.164; an invalid number is dropped.' })
  customerPhoneNumber?: string | null;

  @Field(() => GraphQLJSONObject, { description: 'String to string, stored verbatim.' })
  metadata!: Record<string, string>;

  /** Set by presentOrder when the business is at hand (every write's answer); else the `staff` field resolves it. */
  @Field(() => String, { nullable: true, description: "The server or cashier: the order's `metadata` value of its business's `staffKey` (default `server`)." })
  staff?: string | null;
}
