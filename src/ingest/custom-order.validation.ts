import { AppError, type ErrorDetail } from '../shared/errors.js';
import type { OrderChannel, OrderStatus } from '../modules/order/order.entity.js';
import { normaliseChannel, normaliseCurrency, normaliseEmail, normalisePhone, ORDER_TEXT_LIMITS, parseMoney } from '../modules/order/order.normalise.js';

/**
 * Validation and normalisation of a custom webhook body (spec 4.9). Pure: no database. Every failing field gets its
 * own detail, so one 400 answer names all of them. The normalisation itself (money, channel, currency, e-mail, phone)
 * is the shared one of src/modules/order/order.normalise.ts, so an order reads the same whichever door it came in by.
 * Text PostgreSQL cannot store (NUL, unpaired surrogates) never gets here: the body middleware refuses it for every door.
 */

export interface IngestLine {
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

export interface IngestOrder {
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
  lines: IngestLine[];
}

const MAX = ORDER_TEXT_LIMITS;
const INT4_MAX = 2_147_483_647;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Problems {
  readonly details: ErrorDetail[] = [];
  fail(field: string, message: string) {
    this.details.push({ field, message });
  }
}

/** An optional string: absent or null -> null. */
function optionalString(p: Problems, field: string, value: unknown, max?: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    p.fail(field, 'must be a string');
    return null;
  }
  if (max !== undefined && value.length > max) {
    p.fail(field, `must be at most ${max} characters`);
    return null;
  }
  return value;
}

/** A money field: a number or a string from which symbols and separators are removed ("Rs. 1,250.00" is 1250). */
function optionalMoney(p: Problems, field: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' && typeof value !== 'number') {
    p.fail(field, 'must be a money string (e.g. "Rs. 1,250.00") or a number');
    return null;
  }
  const parsed = parseMoney(value);
  if (parsed.error !== undefined) {
    p.fail(field, parsed.error);
    return null;
  }
  return parsed.value;
}

function validateLine(p: Problems, at: string, item: Obj): Omit<IngestLine, 'position'> {
  const itemId = optionalString(p, `${at}.itemId`, item.itemId, MAX.itemId);
  const name = optionalString(p, `${at}.name`, item.name, MAX.itemName);
  let quantity: number | null = null;
  if (item.quantity !== undefined && item.quantity !== null) {
    if (typeof item.quantity !== 'number' || !Number.isInteger(item.quantity) || item.quantity < 0 || item.quantity > INT4_MAX) {
      p.fail(`${at}.quantity`, 'must be a whole number from 0');
    } else quantity = item.quantity;
  }
  let salesTaxPercent: number | null = null;
  if (item.salesTaxPercent !== undefined && item.salesTaxPercent !== null) {
    const parsed = typeof item.salesTaxPercent === 'number' || typeof item.salesTaxPercent === 'string' ? parseMoney(item.salesTaxPercent) : undefined;
    if (!parsed || parsed.error !== undefined || parsed.value > 100) p.fail(`${at}.salesTaxPercent`, 'must be a number from 0 to 100');
    else salesTaxPercent = parsed.value;
  }
  return {
    itemId: itemId?.trim() || null,
    name: name?.trim() || null,
    quantity,
    unitPrice: optionalMoney(p, `${at}.unitPrice`, item.unitPrice),
    totalPrice: optionalMoney(p, `${at}.totalPrice`, item.totalPrice),
    salesTaxPercent,
    salesTaxAmount: optionalMoney(p, `${at}.salesTaxAmount`, item.salesTaxAmount),
    itemComment: optionalString(p, `${at}.itemComment`, item.itemComment, MAX.comment),
  };
}

/**
 * The webhook body as a normalised order, or AppError `validation_failed` (400) with one detail per failing field.
 * `country` is the business's ISO 3166 country: the region of phone numbers written without a country code.
 */
export function validateCustomOrder(body: unknown, country: string | null | undefined): IngestOrder {
  const p = new Problems();
  if (!isObject(body)) throw AppError.validation([{ field: 'body', message: 'must be a JSON object' }]);

  // Required: externalOrderId, total, currency, metadata.
  let externalOrderId = '';
  if (body.externalOrderId === undefined || body.externalOrderId === null) p.fail('externalOrderId', 'is required');
  else {
    const value = optionalString(p, 'externalOrderId', body.externalOrderId, MAX.externalId);
    if (value !== null && !value.trim()) p.fail('externalOrderId', 'must not be empty');
    externalOrderId = value?.trim() ?? '';
  }

  let total = 0;
  if (body.total === undefined || body.total === null) p.fail('total', 'is required');
  else total = optionalMoney(p, 'total', body.total) ?? 0;

  let currency = '';
  if (body.currency !== undefined && body.currency !== null && typeof body.currency !== 'string') p.fail('currency', 'must be a string (an ISO 4217 code)');
  else {
    const result = normaliseCurrency(body.currency);
    if (result.error !== undefined) p.fail('currency', result.error);
    else currency = result.value;
  }

  const metadataEntries: [string, string][] = [];
  if (body.metadata === undefined || body.metadata === null) p.fail('metadata', 'is required (an object of string values with at least one entry)');
  else if (!isObject(body.metadata)) p.fail('metadata', 'must be an object of string values');
  else {
    const entries = Object.entries(body.metadata);
    if (!entries.length) p.fail('metadata', 'must have at least one entry');
    for (const [key, value] of entries) {
      if (typeof value !== 'string') p.fail(`metadata.${key}`, 'must be a string');
      else metadataEntries.push([key, value]);
    }
  }

  // Optional fields: their types, then the shared normalisation.
  const externalLocationId = optionalString(p, 'externalLocationId', body.externalLocationId, MAX.externalId);
  const externalBrandId = optionalString(p, 'externalBrandId', body.externalBrandId, MAX.externalId);
  const customerName = optionalString(p, 'customerName', body.customerName, MAX.customerName);
  const email = optionalString(p, 'customerEmail', body.customerEmail);
  const phone = optionalString(p, 'customerPhoneNumber', body.customerPhoneNumber);
  const channel = optionalString(p, 'channel', body.channel);
  const subtotal = optionalMoney(p, 'subtotal', body.subtotal);
  const deliveryCharge = optionalMoney(p, 'deliveryCharge', body.deliveryCharge);
  if (body.payment !== undefined && body.payment !== null && typeof body.payment !== 'boolean') p.fail('payment', 'must be true or false');

  const lines: IngestLine[] = [];
  if (body.items !== undefined && body.items !== null) {
    if (!Array.isArray(body.items)) p.fail('items', 'must be an array of objects');
    else {
      body.items.forEach((item, i) => {
        if (!isObject(item)) return p.fail(`items[${i}]`, 'must be an object');
        const line = validateLine(p, `items[${i}]`, item);
        // Rule 1: a line with neither name nor itemId is ignored.
        if (line.name || line.itemId) lines.push({ position: lines.length, ...line });
      });
    }
  }

  if (p.details.length) throw AppError.validation(p.details);
  return {
    externalOrderId,
    externalLocationId: externalLocationId?.trim() || null,
    externalBrandId: externalBrandId?.trim() || null,
    channel: normaliseChannel(channel),
    status: body.payment === true ? 'ACCEPTED' : 'PENDING',
    currency,
    total,
    subtotal,
    deliveryCharge,
    customerName: customerName?.trim() || null,
    customerEmail: email === null || email.length > 320 ? null : normaliseEmail(email),
    customerPhone: phone === null || phone.length > 64 ? null : normalisePhone(phone, country),
    // fromEntries defines own properties: a "__proto__" key is kept as data, verbatim.
    metadata: Object.fromEntries(metadataEntries),
    lines,
  };
}
