import type { EntityManager } from '@mikro-orm/postgresql';
import { stringifyWithMillis } from '../../shared/timestamps.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { recordedChanges } from '../../kit/resource/recorded-change.js';
import { Event } from './event.entity.js';
import type { EventType } from './event.type.js';

/**
 * Records that something changed. Call it with the EntityManager of the change's own transaction: the event is
 * flushed with the change, or not at all. `object` is the resource as the API presents it.
 */
export function recordEvent(em: EntityManager, business: string, type: string, object: object): Event {
  return em.create(Event, { business, type, data: { object: asJson(object) } });
}

/** The kit's update and delete recipe (kit/resource/recorded-change.ts), recording with recordEvent: every writer's import. */
export const { createRecorded, updateRecorded, deleteRecorded } = recordedChanges(recordEvent);
export type { RecordedResource } from '../../kit/resource/recorded-change.js';

/** The JSON the API would show: dates as milliseconds since the epoch, like every timestamp in JSON here. */
function asJson(value: object): Record<string, unknown> {
  return JSON.parse(stringifyWithMillis(value));
}

export function presentEvent(event: Event) {
  return {
    id: event.id,
    object: 'event',
    business: event.business,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
  };
}

function listEvents(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<Event, EventType>(em, Event, { scope: { business }, args, present: presentEvent });
}

const findEvent = (em: EntityManager, business: string, id: string) => findOwned(em, Event, { kind: 'event', label: 'Event', business, id });

/** Read-only, for the GraphQL resolver (OwnedCrudResolver): events are written by the changes they record. */
export const crud = { list: listEvents, find: findEvent, present: presentEvent };
