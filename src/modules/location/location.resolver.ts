import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { LocationType } from './location.type.js';
import { CreateLocationInput, LocationList, LocationListArgs, UpdateLocationInput } from './location.inputs.js';
import * as locations from './location.service.js';

@Resolver(() => LocationType)
export class LocationResolver extends BusinessOwnedResolver(LocationType) {
  @Authorized('locations:read')
  @Query(() => LocationList)
  locations(
    @Arg('business', () => ID) business: string,
    @Args(() => LocationListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return locations.listLocations(em, business, args);
  }

  @Authorized('locations:read')
  @Query(() => LocationType)
  async location(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return locations.presentLocation(await locations.findLocation(em, business, id));
  }

  @Authorized('locations:write')
  @Mutation(() => LocationType)
  createLocation(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateLocationInput) input: CreateLocationInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return locations.createLocation(em, business, input);
  }

  @Authorized('locations:write')
  @Mutation(() => LocationType)
  updateLocation(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateLocationInput) input: UpdateLocationInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return locations.updateLocation(em, business, id, input);
  }

  @Authorized('locations:write')
  @Mutation(() => ID)
  deleteLocation(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return locations.deleteLocation(em, business, id);
  }
}
