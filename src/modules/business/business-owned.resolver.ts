import { Ctx, FieldResolver, Resolver, Root, type ClassType } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { loadBusiness } from './business.resolver.js';
import { BusinessType } from './business.type.js';

/**
 * The base of the resolver of every object a business owns: its `business` field, resolved through the request's
 * loader, written once. `class SurveyResolver extends BusinessOwnedResolver(SurveyType)` (TypeGraphQL's resolver
 * inheritance: the base is decorated for the object type and only its subclasses are given to the schema).
 */
export function BusinessOwnedResolver<T extends { business: string }>(objectType: ClassType<T>) {
  @Resolver(() => objectType)
  abstract class BusinessOwned {
    @FieldResolver(() => BusinessType)
    business(@Root() owned: T, @Ctx() { loaders }: GraphQLContext): Promise<BusinessType> {
      return loadBusiness(loaders, owned.business);
    }
  }
  return BusinessOwned;
}
