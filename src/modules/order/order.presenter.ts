import type { Order } from './order.entity.js';
import type { OrderItem } from './order-item.entity.js';
import type { OrderItemType, OrderType } from './order.type.js';

/**
 * The one shape of an order and its lines, whichever door shows it: GraphQL and REST (through the schema), the
 * custom webhook's answer and the events' payloads. Rows the order writer read or wrote with SQL are presented by
 * the same functions as entities: they take the stored fields, not the ORM class.
 */
export type OrderRecord = Pick<
  Order,
  | 'id'
  | 'business'
  | 'externalOrderId'
  | 'externalLocationId'
  | 'externalBrandId'
  | 'source'
  | 'channel'
  | 'status'
  | 'currency'
  | 'subtotal'
  | 'deliveryCharge'
  | 'total'
  | 'customerName'
  | 'customerEmail'
  | 'customerPhone'
  | 'metadata'
  | 'createdAt'
  | 'updatedAt'
>;
export type OrderItemRecord = Pick<
  OrderItem,
  | 'id'
  | 'business'
  | 'position'
  | 'menuItem'
  | 'externalItemId'
  | 'name'
  | 'quantity'
  | 'unitPrice'
  | 'totalPrice'
  | 'salesTaxPercent'
  | 'salesTaxAmount'
  | 'itemComment'
>;

/**
 * What an order's presentation needs of its business: the `metadata` key that names the server or cashier. Every door
 * that has the order's business at hand shows `staff` through it; see presentOrder.
 */
export interface OrderOwner {
  staffKey: string;
}

/** Every field of the order, `staff` included: what presentOrder gives with the business's staffKey. */
export type PresentedOrder = OrderType & { staff: string | null };
/** With its relations as `GET .../orders/{id}?expand=items` shows them: the lines, and the ids of linked submissions. */
export type OrderWithItems = PresentedOrder & { items: OrderItemType[]; submissions: string[] };
/** As JSON answers and events carry it: timestamps in milliseconds. */
type Ms<T> = Omit<T, 'createdAt' | 'updatedAt'> & { createdAt: number; updatedAt: number };

/**
 * The order as every door shows it. Given its business's `owner` fields it is complete, `staff` included: the answers
 * of the writes (the webhook's, createOrder's, updateOrder's) and the events' payloads, each door having read the
 * business already. GraphQL's reads give none: their `staff` field reads the business through the request's loader,
 * only when a query asks for it (a page of orders that does not show staff costs no read of the business).
 */
export function presentOrder(order: OrderRecord, owner: OrderOwner): PresentedOrder;
export function presentOrder(order: OrderRecord): OrderType;
export function presentOrder(order: OrderRecord, owner?: OrderOwner): OrderType {
  return {
    id: order.id,
    object: 'order',
    business: order.business,
    externalOrderId: order.externalOrderId,
    externalLocationId: order.externalLocationId ?? null,
    externalBrandId: order.externalBrandId ?? null,
    source: order.source,
    channel: order.channel ?? null,
    status: order.status,
    currency: order.currency,
    subtotal: order.subtotal ?? null,
    deliveryCharge: order.deliveryCharge ?? null,
    total: order.total,
    customerName: order.customerName ?? null,
    customerEmail: order.customerEmail ?? null,
    customerPhoneNumber: order.customerPhone ?? null,
    metadata: order.metadata,
    // Undefined without an owner: one shape of object either way.
    staff: owner ? staffOf(order.metadata, owner.staffKey) : undefined,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function presentOrderItem(item: OrderItemRecord): OrderItemType {
  return {
    id: item.id,
    object: 'orderitem',
    business: item.business,
    menuItem: item.menuItem ?? null,
    position: item.position,
    itemId: item.externalItemId ?? null,
    name: item.name ?? null,
    quantity: item.quantity ?? null,
    unitPrice: item.unitPrice ?? null,
    totalPrice: item.totalPrice ?? null,
    salesTaxPercent: item.salesTaxPercent ?? null,
    salesTaxAmount: item.salesTaxAmount ?? null,
    itemComment: item.itemComment ?? null,
  };
}

/** `submissions`: ids, newest first (a new order has none). Events carry the order alone (presentOrder). */
export function presentOrderWithItems(order: OrderRecord, owner: OrderOwner, items: OrderItemRecord[], submissions: string[]): OrderWithItems {
  return { ...presentOrder(order, owner), items: items.map(presentOrderItem), submissions };
}

/**
 * Timestamps as milliseconds: an order with its lines as `GET /v2/businesses/{b}/orders/{id}?expand=items` answers
 * it (relations as ids), or the order alone as events carry it. Only the order has dates: no walk over the lines.
 */
export function orderJson<T extends PresentedOrder>(order: T): Ms<T> {
  return { ...order, createdAt: order.createdAt.getTime(), updatedAt: order.updatedAt.getTime() };
}

/** The order's address in the orders API (interface 4.9: the webhook answer's `url`). */
export const orderPath = (business: string, id: string) => `/v2/businesses/${business}/orders/${id}`;

/**
 * An order's server or cashier: the value its `metadata` holds under its business's `staffKey`, trimmed, at most 100
 * characters (as the analytics' analytics_staff_of reads it). Derived when read, so a new staffKey applies to every order.
 */
export function staffOf(metadata: Record<string, unknown> | null | undefined, staffKey: string): string | null {
  const value = metadata?.[staffKey];
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 100) : null;
}
