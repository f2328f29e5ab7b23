import { Arg, Authorized, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { findOwned } from '../../kit/resource.js';
import { OwnedCrudResolver, type CrudService } from '../business/business-owned.resolver.js';
import { findPage } from '../../kit/list.query.js';
import { Event } from './event.entity.js';
import { presentEvent } from './event.service.js';
import { EventType } from './event.type.js';
import * as inputs from './event.inputs.js';
import { liveEventsFor, type PresentedEvent } from './event.feed.js';

/** Read-only: events are written by the changes they record. */
const crud = {
  list: (em, business, args) => findPage<Event, EventType>(em, Event, { scope: { business }, args, present: presentEvent }),
  find: (em, business, id) => findOwned(em, Event, { kind: 'event', label: 'Event', business, id }),
  present: presentEvent,
} satisfies CrudService<false, EventType, Event, never, never>;

@Resolver(() => EventType)
export class EventResolver extends OwnedCrudResolver(EventType, inputs, crud, { names: ['event', 'events'] }) {
  @Authorized()
  @Subscription(() => EventType, {
    description:
      'The business\'s events as they are recorded, by any process of the service (graphql-ws over a WebSocket to /graphql). ' +
      '`types`: only these (default: every type the token may hear). A token hears an event with events:read or with the read scope of its resource (order.* with orders:read).',
    subscribe: ({ args, context }) => liveEventsFor(context as GraphQLContext, args.business, args.types),
  })
  eventRecorded(
    @Arg('business', () => ID) _business: string,
    @Arg('types', () => [String], { nullable: true }) _types: string[] | undefined,
    @Root() event: PresentedEvent,
  ): PresentedEvent {
    return event;
  }
}
