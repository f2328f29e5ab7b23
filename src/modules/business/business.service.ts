import { checkTimeZone } from '../../shared/time-zone.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { isId } from '../../shared/id.js';
import { User } from '../user/user.entity.js';
import { Membership } from '../user/membership.entity.js';
import { Business } from './business.entity.js';

/** A business and its owner's membership, in one transaction. */
export async function createBusiness(
  em: EntityManager,
  input: { name: string; owner: string; country?: string; timeZone?: string },
): Promise<{ business: Business; membership: Membership }> {
  const checks = new Checks();
  const name = input.name?.trim() ?? '';
  if (!name || name.length > 200) checks.fail('name', 'must be 1 to 200 characters');
  const country = input.country?.trim().toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) checks.fail('country', 'must be an ISO 3166-1 alpha-2 code such as PK or GB');
  checkTimeZone(checks, 'timeZone', input.timeZone);
  checks.throwIfAny();
  const owner = isId('user', input.owner) ? await em.findOne(User, { id: input.owner }) : null;
  if (!owner) throw AppError.notFound('User', input.owner);
  return em.transactional(async (tx) => {
    const business = tx.create(Business, { name, country: country ?? null, timeZone: input.timeZone ?? null });
    const membership = tx.create(Membership, { user: owner.id, business: business.id, role: 'owner' });
    return { business, membership };
  });
}
