import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { recordEvent } from '../event/event.service.js';
import { findPage } from '../../kit/list.query.js';
import { findOwned } from '../../kit/resource.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { Business } from '../business/business.entity.js';
import { checkStringMap } from '../location/location.service.js';
import { syncMenuItems } from '../menu/menu-item.service.js';
import { Order } from './order.entity.js';
import { OrderItem } from './order-item.entity.js';
import type { OrderItemType, OrderType } from './order.type.js';
import type { CreateOrderInput, OrderItemInput, UpdateOrderInput } from './order.inputs.js';
import { normaliseChannel, normaliseCurrency, normaliseEmail, normalisePhone, ORDER_TEXT_LIMITS, parseMoney } from './order.normalise.js';

export function presentOrder(order: Order): OrderType {
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
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function presentOrderItem(item: OrderItem): OrderItemType {
  return {
    id: item.id,
    object: 'orderitem',
    business: item.business,
    menuItemId: item.menuItem ?? null,
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

export const findOrder = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Order, { kind: 'order', label: 'Order', business, id, lock });

export function listOrders(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<Order, OrderType>(em, Order, { scope: { business }, args, present: presentOrder, hydrate: true });
}

function money(checks: Checks, field: string, value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const parsed = parseMoney(value);
  if (parsed.error !== undefined) checks.fail(field, parsed.error);
  return parsed.value;
}

type Normalised = Partial<Pick<Order, 'total' | 'subtotal' | 'deliveryCharge' | 'currency' | 'channel' | 'customerName' | 'customerEmail' | 'customerPhone' | 'metadata' | 'externalBrandId'>>;

/** The fields both create and update carry, through the shared normalisation; undefined = not given. */
function normaliseCommon(checks: Checks, input: Partial<CreateOrderInput>, country: string | null | undefined): Normalised {
  const out: Normalised = {};
  const total = money(checks, 'total', input.total);
  if (total != null) out.total = total;
  else if (input.total === null) checks.fail('total', 'is required');
  const subtotal = money(checks, 'subtotal', input.subtotal);
  if (subtotal !== undefined) out.subtotal = subtotal;
  const deliveryCharge = money(checks, 'deliveryCharge', input.deliveryCharge);
  if (deliveryCharge !== undefined) out.deliveryCharge = deliveryCharge;
  if (input.currency !== undefined) {
    const currency = normaliseCurrency(input.currency);
    if (currency.error !== undefined) checks.fail('currency', currency.error);
    else out.currency = currency.value;
  }
  if (input.channel !== undefined) out.channel = normaliseChannel(input.channel);
  checks.text('customerName', input.customerName, { max: ORDER_TEXT_LIMITS.customerName });
  if (input.customerName !== undefined) out.customerName = input.customerName?.trim() || null;
  if (input.customerEmail !== undefined) out.customerEmail = normaliseEmail(input.customerEmail);
  if (input.customerPhoneNumber !== undefined) out.customerPhone = normalisePhone(input.customerPhoneNumber, country);
  checkStringMap(checks, 'metadata', input.metadata);
  if (input.metadata != null) out.metadata = input.metadata as Record<string, string>;
  checks.text('externalBrandId', input.externalBrandId, { max: ORDER_TEXT_LIMITS.externalId });
  if (input.externalBrandId !== undefined) out.externalBrandId = input.externalBrandId;
  return out;
}

function normaliseItems(checks: Checks, items: OrderItemInput[] | undefined) {
  const lines = (items ?? []).filter((item) => item.name?.trim() || item.itemId?.trim());
  return lines.map((item, i) => {
    const at = `items[${(items ?? []).indexOf(item)}]`;
    checks.text(`${at}.name`, item.name, { max: ORDER_TEXT_LIMITS.itemName });
    checks.text(`${at}.itemId`, item.itemId, { max: ORDER_TEXT_LIMITS.itemId });
    checks.text(`${at}.itemComment`, item.itemComment, { max: ORDER_TEXT_LIMITS.comment });
    if (item.quantity != null && item.quantity < 0) checks.fail(`${at}.quantity`, 'must not be negative');
    const percent = item.salesTaxPercent;
    if (percent != null && (percent < 0 || percent > 100)) checks.fail(`${at}.salesTaxPercent`, 'must be from 0 to 100');
    return {
      position: i,
      name: item.name?.trim() || null,
      externalItemId: item.itemId?.trim() || null,
      quantity: item.quantity ?? null,
      unitPrice: money(checks, `${at}.unitPrice`, item.unitPrice) ?? null,
      totalPrice: money(checks, `${at}.totalPrice`, item.totalPrice) ?? null,
      salesTaxPercent: percent ?? null,
      salesTaxAmount: money(checks, `${at}.salesTaxAmount`, item.salesTaxAmount) ?? null,
      itemComment: item.itemComment ?? null,
    };
  });
}

export async function createOrder(em: EntityManager, business: string, input: CreateOrderInput): Promise<OrderType> {
  const owner = await em.findOne(Business, { id: business });
  const checks = new Checks();
  checks.text('externalOrderId', input.externalOrderId, { required: true, max: ORDER_TEXT_LIMITS.externalId });
  checks.text('externalLocationId', input.externalLocationId, { max: ORDER_TEXT_LIMITS.externalId });
  if (input.currency == null) checks.fail('currency', 'is required (an ISO 4217 code)');
  const fields = normaliseCommon(checks, input, owner?.country);
  const lines = normaliseItems(checks, input.items);
  checks.throwIfAny();
  try {
    return await em.transactional(async (tx) => {
      const order = tx.create(Order, {
        ...fields,
        business,
        externalOrderId: input.externalOrderId.trim(),
        externalLocationId: input.externalLocationId?.trim() || null,
        source: 'api',
        status: input.status ?? 'PENDING',
        total: fields.total!,
        currency: fields.currency!,
      });
      // The order row first: a duplicate external id fails here, before any menu item is touched.
      await tx.flush();
      const menuIds = await syncMenuItems(tx, business, lines.map((l) => ({ name: l.name, itemId: l.externalItemId })));
      lines.forEach((line, i) => tx.create(OrderItem, { ...line, business, order: order.id, menuItem: menuIds[i] }));
      const presented = presentOrder(order);
      recordEvent(tx, business, 'order.created', presented);
      return presented;
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw new AppError('conflict', `An order with externalOrderId '${input.externalOrderId}' already exists at this externalLocationId`, [
        { field: 'externalOrderId', message: 'already exists' },
      ]);
    }
    throw err;
  }
}

export async function updateOrder(em: EntityManager, business: string, id: string, input: UpdateOrderInput): Promise<OrderType> {
  const owner = await em.findOne(Business, { id: business });
  const checks = new Checks();
  const fields = normaliseCommon(checks, input, owner?.country);
  checks.throwIfAny();
  return em.transactional(async (tx) => {
    const order = await findOrder(tx, business, id, true);
    if (input.status && input.status !== order.status && order.status === 'ACCEPTED') {
      throw new AppError('conflict', 'An ACCEPTED order cannot move back to PENDING', [{ field: 'status', message: 'order is ACCEPTED' }]);
    }
    tx.assign(order, { ...fields, ...(input.status ? { status: input.status } : {}), updatedAt: new Date() });
    const presented = presentOrder(order);
    recordEvent(tx, business, 'order.updated', presented);
    return presented;
  });
}
