import { Checks } from '../../shared/validation.js';

/** The order `metadata` key of the server or cashier when a business names none (issue 36). */
export const DEFAULT_STAFF_KEY = 'server';

/**
 * A business's `staffKey`: 1 to 100 characters, trimmed; null goes back to the default. Changing it applies to
 * submissions written from then on (each keeps the staff it was counted for, as it keeps its day); `admin
 * rebuild-analytics` recounts older ones by the new key.
 */
export function checkStaffKey(value: string | null | undefined): { staffKey?: string } {
  if (value === undefined) return {};
  const staffKey = value === null ? DEFAULT_STAFF_KEY : value.trim();
  const checks = new Checks();
  if (!staffKey || staffKey.length > 100) checks.fail('staffKey', 'must be 1 to 100 characters');
  checks.throwIfAny();
  return { staffKey };
}
