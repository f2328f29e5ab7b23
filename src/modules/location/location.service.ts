import type { EntityManager } from '@mikro-orm/postgresql';
import { createRecorded, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { Checks } from '../../shared/validation.js';
import { checkTimeZone } from '../../shared/time-zone.js';
import { Location } from './location.entity.js';
import { locationIdByMetadata, orderZoneOf } from './location.repo.js';
import type { LocationType } from './location.type.js';
import type { CreateLocationInput, UpdateLocationInput } from './location.inputs.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';
import { movingThemes } from '../theme-rollup/index.js';

export const presentLocation: (record: Location) => LocationType = ownedPresenter('location', ['name', 'metadata', 'timeZone']);

/** String keys to string values; the link syntax `<key>.<value>` splits at the first dot, so keys hold none. */
function checkStringMap(checks: Checks, field: string, value: Record<string, unknown> | undefined) {
  checks.stringMap(field, value, { maxEntries: 100, maxValue: 500, badKey: (key) => (key.includes('.') ? 'keys must contain no dot' : undefined) });
}

function check(input: Partial<CreateLocationInput>, creating: boolean) {
  const checks = new Checks();
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 200 });
  checkStringMap(checks, 'metadata', input.metadata);
  checkTimeZone(checks, 'timeZone', input.timeZone);
  checks.throwIfAny();
}

const { find: findLocation, list: listLocations, recorded } = ownedResource(Location, { kind: 'location', label: 'Location', present: presentLocation });
export { findLocation };

/** The time zone an order is known to be local to: its location's, else its business's; null: neither names one. */
export const orderTimeZone = (em: EntityManager, business: string, externalLocationId: string | null): Promise<string | null> =>
  orderZoneOf(em, business, externalLocationId);

/** `location:metadata` of a survey link: the oldest location whose metadata holds key = value, or null. */
export async function findLocationByMetadata(em: EntityManager, business: string, key: string, value: string): Promise<Location | null> {
  const id = await locationIdByMetadata(em, business, key, value);
  return id ? em.findOne(Location, { id }) : null;
}

export function createLocation(em: EntityManager, business: string, input: CreateLocationInput): Promise<LocationType> {
  check(input, true);
  return createRecorded(em, recorded, business, (tx) =>
    tx.create(Location, { business, name: input.name.trim(), metadata: (input.metadata ?? {}) as Record<string, string>, timeZone: input.timeZone ?? null }),
  );
}

function updateLocation(em: EntityManager, business: string, id: string, input: UpdateLocationInput): Promise<LocationType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (location) => {
    if (input.name != null) location.name = input.name.trim();
    if (input.metadata != null) location.metadata = input.metadata as Record<string, string>;
    if (input.timeZone !== undefined) location.timeZone = input.timeZone;
  });
}

/** Submissions keep their answers and lose only the link (foreign key set null). */
function deleteLocation(em: EntityManager, business: string, id: string): Promise<string> {
  // The submissions' answers move, in the theme rollups, to no location and another day, when the location had its own time zone.
  return deleteRecorded(em, recorded, business, id, (row, tx) =>
    movingThemes(tx, business, { location: row.id }, async () => {
      tx.remove(row);
      await tx.flush();
    }),
  );
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = {
  list: listLocations,
  find: findLocation,
  present: presentLocation,
  create: createLocation,
  update: updateLocation,
  delete: deleteLocation,
};
