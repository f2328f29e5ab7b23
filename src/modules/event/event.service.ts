import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from './event.entity.js';

/**
 * Records that something changed. Call it with the EntityManager of the change's own transaction: the event is
 * flushed with the change, or not at all (DESIGN.md section 6). `object` is the resource as the API presents it.
 */
export function recordEvent(em: EntityManager, business: string, type: string, object: object): Event {
  return em.create(Event, { business, type, data: { object: asJson(object) } });
}

/** The JSON the API would show: dates as milliseconds since the epoch, like every timestamp in JSON here. */
function asJson(value: object): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
      const original = this[key];
      return original instanceof Date ? original.getTime() : v;
    }),
  );
}

export function presentEvent(event: Event) {
  return {
    id: event.id,
    object: 'event' as const,
    business: event.business,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
  };
}
