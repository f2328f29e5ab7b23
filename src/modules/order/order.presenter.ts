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
  | 'id' | 'business' | 'externalOrderId' | 'externalLocationId' | 'externalBrandId' | 'source' | 'channel' | 'status' | 'currency'
  | 'subtotal' | 'deliveryCharge' | 'total' | 'customerName' | 'customerEmail' | 'customerPhone' | 'metadata' | 'createdAt' | 'updatedAt'
>;
export type OrderItemRecord = Pick<
  OrderItem,
  | 'id' | 'business' | 'position' | 'menuItem' | 'externalItemId' | 'name' | 'quantity' | 'unitPrice' | 'totalPrice'
  | 'salesTaxPercent' | 'salesTaxAmount' | 'itemComment'
>;

/** With its relations as `GET .../orders/{id}?expand=items` shows them: the lines, and the ids of linked submissions. */
export type OrderWithItems = OrderType & { items: OrderItemType[]; submissions: string[] };
type Ms<T> = Omit<T, 'createdAt' | 'updatedAt'> & { createdAt: number; updatedAt: number };
/** As JSON answers and events carry it: timestamps in milliseconds. */
export type OrderJson = Ms<OrderWithItems>;

export function presentOrder(order: OrderRecord): OrderType {
  return {
    id: order.id, object: 'order', business: order.business,
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
    createdAt: order.createdAt, updatedAt: order.updatedAt,
  };
}

export function presentOrderItem(item: OrderItemRecord): OrderItemType {
  return {
    id: item.id, object: 'orderitem', business: item.business,
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
export function presentOrderWithItems(order: OrderRecord, items: OrderItemRecord[], submissions: string[]): OrderWithItems {
  return { ...presentOrder(order), items: items.map(presentOrderItem), submissions };
}

/**
 * Timestamps as milliseconds: an order with its lines as `GET /v2/businesses/{b}/orders/{id}?expand=items` answers
 * it (relations as ids), or the order alone as events carry it. Only the order has dates: no walk over the lines.
 */
export function orderJson<T extends OrderType>(order: T): Ms<T> {
  return { ...order, createdAt: order.createdAt.getTime(), updatedAt: order.updatedAt.getTime() };
}

/** The order's address in the orders API (spec 4.9: the webhook answer's `url`). */
export const orderPath = (business: string, id: string) => `/v2/businesses/${business}/orders/${id}`;

/**
 * An order's server or cashier: the value its `metadata` holds under its business's `staffKey`, trimmed, at most 100
 * characters (as the analytics' analytics_staff_of reads it). Derived when read, so a new staffKey applies to every order.
 */
export function staffOf(metadata: Record<string, unknown> | null | undefined, staffKey: string): string | null {
  const value = metadata?.[staffKey];
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 100) : null;
}
