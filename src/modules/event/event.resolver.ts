import { Arg, Authorized, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { OwnedCrudResolver } from '../business/index.js';
import * as events from './event.service.js';
import { EventType } from './event.type.js';
import * as inputs from './event.inputs.js';
import { liveEventsFor, type PresentedEvent } from './event-feed.service.js';

/** Read-only: events are written by the changes they record. */
@Resolver(() => EventType)
export class EventResolver extends OwnedCrudResolver(EventType, inputs, events.crud, { names: ['event', 'events'] }) {
  @Authorized()
  @Subscription(() => EventType, {
    description:
      "The business's events as they are recorded, by any process of the service (graphql-ws over a WebSocket to /graphql). " +
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
