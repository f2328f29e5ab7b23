import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import type { Loaders } from '../../kit/graphql/loaders.js';
import { loadRequired } from '../../kit/graphql/relation.load.js';
import { ownedResolvers } from '../../kit/graphql/owned.resolver.js';
import type { Parent } from '../../kit/graphql/resource.type.js';
import { isId } from '../../shared/id.js';
import { AppError } from '../../shared/errors.js';
import { Business } from './business.entity.js';
import { BusinessType } from './business.type.js';
import { UpdateBusinessInput } from './business.inputs.js';
import { logoPath } from './brand.rules.js';
import { updateBusiness } from './business.service.js';

export function presentBusiness(business: Business): BusinessType {
  const { id, name, country, timeZone, createdAt, updatedAt } = business;
  return {
    id,
    object: 'business',
    name,
    country: country ?? null,
    timeZone: timeZone ?? null,
    displayName: business.displayName || name,
    brandColor: business.brandColor ?? null,
    logoFile: business.logoFile ?? null,
    reviewUrl: business.reviewUrl ?? null,
    replyTo: business.replyTo ?? null,
    staffKey: business.staffKey ?? 'server',
    createdAt,
    updatedAt,
  };
}

/** Through the request's loader, so a page of objects asks for their businesses in one statement. */
export function loadBusiness(loaders: Loaders, id: string): Promise<BusinessType> {
  // An id of another kind is no business: not looked up.
  if (!isId('business', id)) return Promise.reject(AppError.notFound('Business', id));
  return loadRequired(loaders.byId(Business), id, 'Business', presentBusiness);
}

/** The CRUD resolver factories of the objects a business owns, their `business` field loaded as above (kit/graphql/owned.resolver.ts). */
export const { BusinessOwnedResolver, OwnedCrudResolver, NestedCrudResolver } = ownedResolvers({ type: BusinessType, load: loadBusiness });

const forbidden = (id: string) => new AppError('forbidden', `This token does not grant access to business '${id}'`);

@Resolver(() => BusinessType)
export class BusinessResolver {
  @Authorized()
  @Query(() => BusinessType, { description: 'One business by id: the access token must act for that business.' })
  async business(@Arg('id', () => ID) id: string, @Ctx() { loaders, auth }: GraphQLContext): Promise<BusinessType> {
    if (auth?.businessId !== id) throw forbidden(id);
    return loadBusiness(loaders, id);
  }

  @Authorized('business:read')
  @Query(() => BusinessType, {
    description:
      'The business with its face to guests (display name, brand colour, logo, review link, Reply-To): what REST GET /v2/businesses/{business} answers. Needs business:read; `business(id)` needs no scope.',
  })
  async businessProfile(@Arg('business', () => ID) business: string, @Ctx() { loaders }: GraphQLContext): Promise<BusinessType> {
    // The auth checker has matched `business` with the token's business.
    return loadBusiness(loaders, business);
  }

  @Authorized('business:write')
  @Mutation(() => BusinessType, {
    description: "Changes the business's name, its face to guests (display name, brand colour), review link or Reply-To (owners and managers).",
  })
  async updateBusiness(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateBusinessInput) input: UpdateBusinessInput,
    @Ctx() { em, auth }: GraphQLContext,
  ): Promise<BusinessType> {
    if (auth?.businessId !== id) throw forbidden(id);
    return presentBusiness(await updateBusiness(em, id, input));
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: "The logo's address on this service (PUT /v2/businesses/{business}/logo sets it): its content hash is in the address, so it never changes.",
  })
  logoUrl(@Root() business: Parent<BusinessType>, @Ctx() { surveyUrl }: GraphQLContext): string | null {
    return business.logoFile ? `${surveyUrl}${logoPath(business.id, business.logoFile)}` : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The Reply-To of feedback e-mails (needs business:read).' })
  replyTo(@Root() business: Parent<BusinessType>, @Ctx() { auth }: GraphQLContext): string | null {
    if (!auth?.scopes.has('business:read')) throw new AppError('forbidden', 'This token lacks the scope business:read');
    return business.replyTo ?? null;
  }
}
