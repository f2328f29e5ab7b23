import type { Checks, StringMapRule } from '../../shared/validation.js';
import { ORDER_STATUSES, type OrderChannel, type OrderStatus } from './order.entity.js';
import { normaliseChannel, normaliseCurrency, normaliseEmail, normalisePhone, ORDER_TEXT_LIMITS, parseMoney } from './order-normalise.rules.js';

/**
 * The order-field rules, one set for every door: `createOrder`/`updateOrder` (GraphQL, and REST through it) and the
 * custom webhook. Values arrive as JSON (the webhook's body) or as GraphQL input (already typed): each reader checks
 * the type too, so both go through the same code and give the same details. What differs by door is only what spec
 * 4.9 says: the webhook requires at least one metadata entry, and tells the status by `payment` (true = ACCEPTED).
 */
export type OrderDoor = 'api' | 'webhook';

interface OrderLine {
  position: number;
  itemId: string | null;
  name: string | null;
  quantity: number | null;
  unitPrice: number | null;
  totalPrice: number | null;
  salesTaxPercent: number | null;
  salesTaxAmount: number | null;
  itemComment: string | null;
}

/** A new order, normalised. */
export interface OrderFields {
  externalOrderId: string;
  externalLocationId: string | null;
  externalBrandId: string | null;
  channel: OrderChannel | null;
  status: OrderStatus;
  currency: string;
  total: number;
  subtotal: number | null;
  deliveryCharge: number | null;
  customerName: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  metadata: Record<string, string>;
  lines: OrderLine[];
}

/** What an update may change (identity and lines are fixed at creation); absent = unchanged. */
export type OrderChanges = Partial<Omit<OrderFields, 'externalOrderId' | 'externalLocationId' | 'lines'>>;

type Input = Record<string, unknown>;
const isObject = (v: unknown): v is Input => typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX = ORDER_TEXT_LIMITS;
const INT4_MAX = 2_147_483_647;
/** Lines of one order, at every door: each is a row written with the order and read with it on every page that shows it. */
export const MAX_ORDER_ITEMS = 500;
/** Order metadata is stored verbatim (dots and all), bounded so one order cannot carry a document. */
const ORDER_METADATA: StringMapRule = { maxEntries: 100, maxKey: 200, maxValue: 500 };

// Each reader: undefined when absent or refused (a detail is recorded), null when sent as null.

function trimmedText(checks: Checks, field: string, value: unknown, max: number): string | null | undefined {
  if (value == null || !checks.text(field, value, { max })) return value === null ? null : undefined;
  return (value as string).trim() || null;
}

function money(checks: Checks, field: string, value: unknown): number | null | undefined {
  if (value == null) return value as null | undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    checks.fail(field, 'must be a money string (e.g. "Rs. 1,250.00") or a number');
    return undefined;
  }
  const parsed = parseMoney(value);
  if (parsed.error !== undefined) checks.fail(field, parsed.error);
  return parsed.value;
}

function currency(checks: Checks, value: unknown): string | undefined {
  if (value != null && typeof value !== 'string') return void checks.fail('currency', 'must be a string (an ISO 4217 code)');
  const result = normaliseCurrency(value);
  if (result.error !== undefined) checks.fail('currency', result.error);
  return result.value;
}

/** A text normalised by `normalise` (channel, e-mail, phone): refused only when not a string. */
function normalised<T>(checks: Checks, field: string, value: unknown, normalise: (v: string) => T): T | null | undefined {
  if (value == null || !checks.text(field, value)) return value === null ? null : undefined;
  return normalise(value as string);
}

function metadata(checks: Checks, value: unknown, door: OrderDoor): Record<string, string> | undefined {
  const rule = door === 'webhook' ? { ...ORDER_METADATA, minEntries: 1 } : ORDER_METADATA;
  if (!checks.stringMap('metadata', value, rule) || value == null) return undefined;
  // fromEntries defines own properties: a "__proto__" key is kept as data, verbatim.
  return Object.fromEntries(Object.entries(value as Input)) as Record<string, string>;
}

function status(checks: Checks, input: Input, door: OrderDoor): OrderStatus | undefined {
  if (door === 'webhook') {
    if (input.payment != null && typeof input.payment !== 'boolean') return void checks.fail('payment', 'must be true or false');
    return input.payment === true ? 'ACCEPTED' : 'PENDING';
  }
  if (input.status == null) return undefined;
  if (!(ORDER_STATUSES as readonly unknown[]).includes(input.status)) return void checks.fail('status', `must be one of ${ORDER_STATUSES.join(', ')}`);
  return input.status as OrderStatus;
}

function line(checks: Checks, at: string, item: Input): Omit<OrderLine, 'position'> {
  const itemId = trimmedText(checks, `${at}.itemId`, item.itemId, MAX.itemId) ?? null;
  const name = trimmedText(checks, `${at}.name`, item.name, MAX.itemName) ?? null;
  let quantity: number | null = null;
  if (item.quantity != null) {
    if (typeof item.quantity !== 'number' || !Number.isInteger(item.quantity) || item.quantity < 0 || item.quantity > INT4_MAX) {
      checks.fail(`${at}.quantity`, 'must be a whole number from 0');
    } else quantity = item.quantity;
  }
  // A percentage, read like an amount ("16", "16%", 16): from 0 to 100.
  let salesTaxPercent: number | null = null;
  if (item.salesTaxPercent != null) {
    const parsed = typeof item.salesTaxPercent === 'number' || typeof item.salesTaxPercent === 'string' ? parseMoney(item.salesTaxPercent) : undefined;
    if (!parsed || parsed.error !== undefined || parsed.value > 100) checks.fail(`${at}.salesTaxPercent`, 'must be a number from 0 to 100');
    else salesTaxPercent = parsed.value;
  }
  const unitPrice = money(checks, `${at}.unitPrice`, item.unitPrice) ?? null;
  const totalPrice = money(checks, `${at}.totalPrice`, item.totalPrice) ?? null;
  const salesTaxAmount = money(checks, `${at}.salesTaxAmount`, item.salesTaxAmount) ?? null;
  const itemComment = checks.text(`${at}.itemComment`, item.itemComment, { max: MAX.comment })
    ? ((item.itemComment as string | null | undefined) ?? null)
    : null;
  return { itemId, name, quantity, unitPrice, totalPrice, salesTaxPercent, salesTaxAmount, itemComment };
}

/** The lines sent; a line with neither name nor itemId is ignored (interface 4.9, item rule 1). */
function lines(checks: Checks, items: unknown): OrderLine[] {
  if (items == null) return [];
  if (!Array.isArray(items)) {
    checks.fail('items', 'must be an array of objects');
    return [];
  }
  if (items.length > MAX_ORDER_ITEMS) {
    checks.fail('items', `has ${items.length} items; an order has at most ${MAX_ORDER_ITEMS}`);
    return [];
  }
  const kept: OrderLine[] = [];
  items.forEach((item, i) => {
    if (!isObject(item)) return checks.fail(`items[${i}]`, 'must be an object');
    const read = line(checks, `items[${i}]`, item);
    if (read.name || read.itemId) kept.push({ position: kept.length, ...read });
  });
  return kept;
}

/** The fields create and update share; `country` is the business's, the region of phones without a country code. */
function common(checks: Checks, input: Input, door: OrderDoor, country: string | null | undefined): OrderChanges {
  return {
    externalBrandId: trimmedText(checks, 'externalBrandId', input.externalBrandId, MAX.externalId),
    customerName: trimmedText(checks, 'customerName', input.customerName, MAX.customerName),
    customerEmail: normalised(checks, 'customerEmail', input.customerEmail, normaliseEmail),
    customerPhone: normalised(checks, 'customerPhoneNumber', input.customerPhoneNumber, (v) => normalisePhone(v, country)),
    channel: normalised(checks, 'channel', input.channel, normaliseChannel),
    subtotal: money(checks, 'subtotal', input.subtotal),
    deliveryCharge: money(checks, 'deliveryCharge', input.deliveryCharge),
    status: status(checks, input, door),
    metadata: metadata(checks, input.metadata, door),
  };
}

/** A new order from either door; details for every failing field, thrown by the caller's `checks.throwIfAny()`. */
export function readNewOrder(checks: Checks, input: unknown, door: OrderDoor, country: string | null | undefined): OrderFields {
  if (!isObject(input)) {
    checks.fail('body', 'must be a JSON object');
    checks.throwIfAny();
  }
  const body = input as Input;
  const externalOrderId = checks.text('externalOrderId', body.externalOrderId, { required: true, max: MAX.externalId })
    ? (body.externalOrderId as string).trim()
    : '';
  let total = 0;
  if (body.total == null) checks.fail('total', 'is required');
  else total = money(checks, 'total', body.total) ?? 0;
  const code = currency(checks, body.currency) ?? '';
  const externalLocationId = trimmedText(checks, 'externalLocationId', body.externalLocationId, MAX.externalId) ?? null;
  const shared = common(checks, body, door, country);
  return {
    externalOrderId,
    externalLocationId,
    externalBrandId: shared.externalBrandId ?? null,
    channel: shared.channel ?? null,
    status: shared.status ?? 'PENDING',
    currency: code,
    total,
    subtotal: shared.subtotal ?? null,
    deliveryCharge: shared.deliveryCharge ?? null,
    customerName: shared.customerName ?? null,
    customerEmail: shared.customerEmail ?? null,
    customerPhone: shared.customerPhone ?? null,
    metadata: shared.metadata ?? {},
    lines: lines(checks, body.items),
  };
}

/** The changes of an update (API only): only the fields given, by the same rules. */
export function readOrderChanges(checks: Checks, input: Input, country: string | null | undefined): OrderChanges {
  const changes = common(checks, input, 'api', country);
  if (input.total === null) checks.fail('total', 'is required');
  else changes.total = money(checks, 'total', input.total) ?? undefined;
  if (input.currency !== undefined) changes.currency = currency(checks, input.currency);
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as OrderChanges;
}
