import { checkTimeZone } from '../../shared/time-zone.js';
import { Checks } from '../../shared/validation.js';

export interface NewBusiness {
  name: string;
  country?: string;
  timeZone?: string;
}

/**
 * The fields of a new business, trimmed, or a 400 naming those that are wrong. A business never exists without its
 * owner: member.service's createBusiness makes both in one transaction (membership depends on business, not back).
 */
export function checkNewBusiness(input: NewBusiness): NewBusiness {
  const checks = new Checks();
  const name = input.name?.trim() ?? '';
  if (!name || name.length > 200) checks.fail('name', 'must be 1 to 200 characters');
  const country = input.country?.trim().toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) checks.fail('country', 'must be an ISO 3166-1 alpha-2 code such as PK or GB');
  checkTimeZone(checks, 'timeZone', input.timeZone);
  checks.throwIfAny();
  return { name, country, timeZone: input.timeZone };
}
