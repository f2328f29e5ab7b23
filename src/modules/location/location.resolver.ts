import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { LocationType } from './location.type.js';
import { CreateLocationInput, LocationList, LocationListArgs, UpdateLocationInput } from './location.inputs.js';
import * as locations from './location.service.js';

@Resolver(() => LocationType)
export class LocationResolver extends OwnedCrudResolver({
  type: LocationType,
  names: ['location', 'locations'],
  list: [LocationList, LocationListArgs],
  inputs: [CreateLocationInput, UpdateLocationInput],
  service: { list: locations.listLocations, find: locations.findLocation, present: locations.presentLocation, create: locations.createLocation, update: locations.updateLocation, delete: locations.deleteLocation },
}) {}
