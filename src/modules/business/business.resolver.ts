import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
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
  @Query(() => BusinessType, { description: 'One business by id.' })
  async business(@Arg('id', () => ID) id: string, @Ctx() { loaders }: GraphQLContext): Promise<BusinessType> {
    const business = isId('business', id) ? await loaders.business.load(id) : null;
    if (!business) throw AppError.notFound('Business', id);
    return presentBusiness(business);
  }
}
