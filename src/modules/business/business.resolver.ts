import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import type { Loaders } from '../../kit/loaders.js';
import { loadRequired } from '../../kit/relation.load.js';
import { ownedResolvers } from '../../kit/owned.resolver.js';
import { isId } from '../../shared/id.js';
import { AppError } from '../../shared/errors.js';
import { Business } from './business.entity.js';
import { BusinessType } from './business.type.js';

export function presentBusiness(business: Business): BusinessType {
  const { id, name, country, timeZone, createdAt, updatedAt } = business;
  return { id, object: 'business', name, country: country ?? null, timeZone: timeZone ?? null, createdAt, updatedAt };
}

/** Through the request's loader, so a page of objects asks for their businesses in one statement. */
export function loadBusiness(loaders: Loaders, id: string): Promise<BusinessType> {
  // An id of another kind is no business: not looked up.
  if (!isId('business', id)) return Promise.reject(AppError.notFound('Business', id));
  return loadRequired(loaders.byId(Business), id, 'Business', presentBusiness);
}

/** The CRUD resolver factories of the objects a business owns, their `business` field loaded as above (kit/owned.resolver.ts). */
export const { BusinessOwnedResolver, OwnedCrudResolver, NestedCrudResolver } = ownedResolvers({ type: BusinessType, load: loadBusiness });

@Resolver(() => BusinessType)
export class BusinessResolver {
  @Authorized()
  @Query(() => BusinessType, { description: 'One business by id: the access token must act for that business.' })
  async business(@Arg('id', () => ID) id: string, @Ctx() { loaders, auth }: GraphQLContext): Promise<BusinessType> {
    if (auth?.businessId !== id) throw new AppError('forbidden', `This token does not grant access to business '${id}'`);
    return loadBusiness(loaders, id);
  }
}
