import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import { isId } from '../../shared/id.js';
import { User } from '../user/user.entity.js';
import { Membership } from '../user/membership.entity.js';
import { Business } from './business.entity.js';

/** A business and its owner's membership, in one transaction. */
export async function createBusiness(
  em: EntityManager,
  input: { name: string; owner: string; country?: string },
): Promise<{ business: Business; membership: Membership }> {
  const problems: ErrorDetail[] = [];
  const name = input.name?.trim() ?? '';
  if (!name || name.length > 200) problems.push({ field: 'name', message: 'must be 1 to 200 characters' });
  const country = input.country?.trim().toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) {
    problems.push({ field: 'country', message: 'must be an ISO 3166-1 alpha-2 code such as PK or GB' });
  }
  if (problems.length) throw AppError.validation(problems);
  const owner = isId('user', input.owner) ? await em.findOne(User, { id: input.owner }) : null;
  if (!owner) throw AppError.notFound('User', input.owner);
  return em.transactional(async (tx) => {
    const business = tx.create(Business, { name, country: country ?? null });
    const membership = tx.create(Membership, { user: owner.id, business: business.id, role: 'owner' });
    return { business, membership };
  });
}
