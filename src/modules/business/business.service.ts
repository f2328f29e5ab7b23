import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { isId } from '../../shared/id.js';
import { Business } from './business.entity.js';
import { BusinessLogo } from './business-logo.entity.js';
import { checkBrandFields, type BrandFields } from './brand.rules.js';
import { checkStaffKey } from './staff-key.rules.js';
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

/** The fields given changed (checked by brand.rules.ts: contrast, https, e-mail); a 404 for a business that is gone. */
export async function updateBusiness(em: EntityManager, id: string, input: BrandFields & { staffKey?: string | null }): Promise<Business> {
  const change = { ...checkBrandFields(input), ...checkStaffKey(input.staffKey) };
  return em.transactional(async (tx) => {
    const business = await tx.findOne(Business, { id });
    if (!business) throw AppError.notFound('Business', id);
    tx.assign(business, change);
    return business;
  });
}

/** A checked logo (rest-adapter/image.pool.ts decoded it): stored, and the business's address of it changed. */
export interface CheckedLogo {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
}

const EXTENSIONS: Record<CheckedLogo['contentType'], string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export async function setLogo(em: EntityManager, id: string, logo: CheckedLogo): Promise<Business> {
  const file = `${createHash('sha256').update(logo.data).digest('hex')}.${EXTENSIONS[logo.contentType]}`;
  return em.transactional(async (tx) => {
    const business = await tx.findOne(Business, { id });
    if (!business) throw AppError.notFound('Business', id);
    await tx.upsert(BusinessLogo, {
      business: id,
      file,
      contentType: logo.contentType,
      data: logo.data,
      width: logo.width,
      height: logo.height,
      updatedAt: new Date(),
    });
    business.logoFile = file;
    return business;
  });
}

/** The logo at `file` (the address's last part), only while it is the business's current one. */
export async function findLogo(em: EntityManager, business: string, file: string): Promise<BusinessLogo | null> {
  if (!isId('business', business)) return null;
  return em.findOne(BusinessLogo, { business, file });
}
