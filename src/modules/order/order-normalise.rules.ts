// The one check used, not the whole library (its index loads every validator, heap a process keeps at rest). A CommonJS
// module, whose function is also its `default`.
import isEmailModule from 'validator/lib/isEmail.js';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import currencyCodes from 'currency-codes';
import { ORDER_CHANNELS, type OrderChannel } from './order.entity.js';

const isEmail = isEmailModule.default;

/**
 * Normalisation shared by every door that creates orders (GraphQL/REST and the custom webhook), so an order reads
 * the same whichever way it arrived. Each function is pure; callers turn `{error}` results into field details.
 */

/** Column sizes of customer_order / order_item: every door refuses longer values (a 400, never a database error). */
export const ORDER_TEXT_LIMITS = { externalId: 200, customerName: 300, itemName: 300, itemId: 200, comment: 10_000 } as const;

export type Result<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

// Integrators type a channel every way ("Food Panda", "food_panda", "callin", "Call-In"): spaces, hyphens and
// underscores are dropped before comparing, so every spelling of the seven channels matches (interface 4.9).
const CHANNEL_BY_KEY = new Map(ORDER_CHANNELS.filter((c) => c !== 'OTHER').map((c) => [channelKey(c), c]));

function channelKey(value: string): string {
  return value.toUpperCase().replace(/[\s_-]+/g, '');
}

/** Case-insensitive, ignoring spaces, hyphens and underscores. Unknown -> OTHER; absent or blank stays unset. */
export function normaliseChannel(value: string | null | undefined): OrderChannel | null {
  if (value == null || !value.trim()) return null;
  return CHANNEL_BY_KEY.get(channelKey(value)) ?? 'OTHER';
}

// numeric(19,4): 15 integer digits.
const MAX_MONEY = 1e15;

/**
 * A number, or a money string from which currency symbols, codes and separators are removed: "Rs. 1,250.00" is
 * 1250, "$12.5" is 12.5, "1.250,75 €" is 1250.75. Grouping is told from decimals by position: with both `,` and `.`
 * the last one is the decimal mark; with one kind only, it groups thousands when every group after it has 3 digits.
 */
export function parseMoney(value: unknown): Result<number> {
  let amount: number;
  if (typeof value === 'number') {
    amount = value;
  } else if (typeof value === 'string') {
    const first = value.search(/\d/);
    if (first < 0) return { error: `'${value}' holds no digits` };
    const negative = /-\s*$/.test(value.slice(0, first)) || /^\s*\(/.test(value);
    let body = value.slice(first, value.search(/\d[^\d]*$/) + 1).replace(/[\s'’_\u00a0]/g, '');
    if (/[^\d.,]/.test(body)) return { error: `'${value}' is not an amount` };
    const lastDot = body.lastIndexOf('.');
    const lastComma = body.lastIndexOf(',');
    if (lastDot >= 0 && lastComma >= 0) {
      const decimal = lastDot > lastComma ? '.' : ',';
      const group = decimal === '.' ? ',' : '.';
      body = body.split(group).join('').replace(decimal, '.');
    } else if (lastDot >= 0 || lastComma >= 0) {
      const mark = lastDot >= 0 ? '.' : ',';
      const groups = body.split(mark);
      const grouping = groups.length > 2 || (groups.slice(1).every((g) => g.length === 3) && mark === ',');
      body = grouping ? groups.join('') : groups.join('.');
    }
    if (!/^\d+(\.\d+)?$/.test(body)) return { error: `'${value}' is not an amount` };
    amount = Number(body) * (negative ? -1 : 1);
  } else {
    return { error: 'must be a number or a money string' };
  }
  if (!Number.isFinite(amount)) return { error: 'must be a finite number' };
  if (amount < 0) return { error: 'must not be negative' };
  if (amount >= MAX_MONEY) return { error: 'is too large' };
  return { value: Math.round(amount * 10_000) / 10_000 };
}

/** ISO 4217 from the maintained list; accepted in any case, stored upper-case. */
export function normaliseCurrency(value: unknown): Result<string> {
  if (typeof value !== 'string' || !value.trim()) return { error: 'is required (an ISO 4217 code)' };
  const code = value.trim().toUpperCase();
  return currencyCodes.code(code) ? { value: code } : { error: `'${value}' is not an ISO 4217 code` };
}

/** Trimmed and lower-cased when valid; an invalid address is dropped (null), never stored as given. */
export function normaliseEmail(value: string | null | undefined): string | null {
  if (value == null) return null;
  const email = value.trim().toLowerCase();
  return email.length <= 320 && isEmail(email) ? email : null;
}

const MAX_PHONE_INPUT = 64;

/** E.164, reading numbers without a country code in the business's country; invalid -> dropped (null). */
export function normalisePhone(value: string | null | undefined, country?: string | null): string | null {
  // No phone number, however spaced, is this long: dropped unparsed (parsing cost grows with the input).
  if (value == null || !value.trim() || value.length > MAX_PHONE_INPUT) return null;
  const region = country && /^[A-Z]{2}$/i.test(country) ? (country.toUpperCase() as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(value.trim(), region);
  return parsed?.isValid() ? parsed.number : null;
}
