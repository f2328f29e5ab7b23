import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { LocationType } from './location.type.js';
import { CreateLocationInput, LocationList, LocationListArgs, UpdateLocationInput } from './location.inputs.js';
import * as locations from './location.service.js';

@Resolver(() => LocationType)
export class LocationResolver extends OwnedCrudResolver({
  type: LocationType,
  names: { one: 'location', many: 'locations' },
  scopes: { read: 'locations:read', write: 'locations:write' },
  list: { type: LocationList, args: LocationListArgs },
  inputs: { create: CreateLocationInput, update: UpdateLocationInput },
  service: {
    list: locations.listLocations,
    get: async (em, business, id) => locations.presentLocation(await locations.findLocation(em, business, id)),
    create: locations.createLocation,
    update: locations.updateLocation,
    delete: locations.deleteLocation,
  },
}) {}
