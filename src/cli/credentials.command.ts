import { adminCommand, required, UsageError } from './command.js';
import { createCredential, presentCredential } from '../modules/oauth/index.js';
import { Business } from '../modules/business/index.js';
import { Membership } from '../modules/user/index.js';
import { isId } from '../shared/id.js';
import { AppError } from '../shared/errors.js';
import type { EntityManager } from '@mikro-orm/postgresql';

export async function requireBusiness(em: EntityManager, id: string): Promise<Business> {
  const business = isId('business', id) ? await em.findOne(Business, { id }) : null;
  if (!business) throw AppError.notFound('Business', id);
  return business;
}

export const createCredentialCommand = adminCommand({
  usage: 'create-credential --business BUS_ID --name N --redirect-uri URI [--redirect-uri URI2 ...]',
  summary: 'Create an OAuth client (prints clientSecret once)',
  async run(values, em) {
    const business = await requireBusiness(em, required(values, 'business'));
    const redirectUris = (values['redirect-uri'] as string[] | undefined) ?? [];
    if (!redirectUris.length) throw new UsageError('--redirect-uri is required (repeat it for several)');
    // Client-credentials tokens act for the credential's creator: from the CLI, the business owner.
    const owner = await em.findOne(Membership, { business: business.id, role: 'owner' }, { orderBy: { createdAt: 'asc' } });
    if (!owner) throw new AppError('conflict', `Business ${business.id} has no owner to create the credential for`);
    const { credential, clientSecret } = await createCredential(em, {
      business: business.id,
      name: required(values, 'name'),
      validRedirectUris: redirectUris,
      createdBy: owner.user,
    });
    return { data: { ...presentCredential(credential), clientSecret }, object: 'credential' };
  },
});
