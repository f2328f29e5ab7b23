import type { EntityManager } from '@mikro-orm/postgresql';
import { isId } from '../../shared/id.js';
import { Business } from './business.entity.js';
import { logoPath } from './brand.rules.js';

/** What the guest sees of a business: its name, colour, logo (a path on this service) and review link. */
export interface GuestBrand {
  name: string;
  color: string | null;
  logo: string | null;
  reviewUrl: string | null;
}

/** The brand of a business, read from the database (the guest pages keep it in memo (kit/signals/notified.memo.ts)). */
export async function readBrand(em: EntityManager, business: string): Promise<GuestBrand | null> {
  if (!isId('business', business)) return null;
  const row = await em.findOne(
    Business,
    { id: business },
    { fields: ['name', 'displayName', 'brandColor', 'logoFile', 'reviewUrl'], disableIdentityMap: true },
  );
  if (!row) return null;
  return {
    name: row.displayName || row.name,
    color: row.brandColor ?? null,
    logo: row.logoFile ? logoPath(business, row.logoFile) : null,
    reviewUrl: row.reviewUrl ?? null,
  };
}
