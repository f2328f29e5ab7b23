import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { LocationType } from './location.type.js';
import * as inputs from './location.inputs.js';
import * as locations from './location.service.js';

@Resolver(() => LocationType)
export class LocationResolver extends OwnedCrudResolver(LocationType, inputs, locations.crud, { names: ['location', 'locations'] }) {}
