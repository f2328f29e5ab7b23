import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { isId } from '../../shared/id.js';
import { AppError } from '../../shared/errors.js';
import type { Business } from './business.entity.js';
import { BusinessType } from './business.type.js';

export function presentBusiness(business: Business): BusinessType {
  const { id, name, country, createdAt, updatedAt } = business;
  return { id, object: 'business', name, country: country ?? null, createdAt, updatedAt };
}

@Resolver(() => BusinessType)
export class BusinessResolver {
  @Authorized()
  @Query(() => BusinessType, { description: 'One business by id: the access token must act for that business.' })
  async business(@Arg('id', () => ID) id: string, @Ctx() { loaders, auth }: GraphQLContext): Promise<BusinessType> {
    if (auth?.businessId !== id) throw new AppError('forbidden', `This token does not grant access to business '${id}'`);
    const business = isId('business', id) ? await loaders.business.load(id) : null;
    if (!business) throw AppError.notFound('Business', id);
    return presentBusiness(business);
  }
}
