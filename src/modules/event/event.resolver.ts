import { Arg, Args, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { findOwned } from '../../kit/resource.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import { findPage } from '../../kit/list.query.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { Event } from './event.entity.js';
import { presentEvent } from './event.service.js';
import { EventType } from './event.type.js';
import { EventList, EventListArgs } from './event.inputs.js';

/** Read-only: events are written by the changes they record. */
@Resolver(() => EventType)
export class EventResolver extends BusinessOwnedResolver(EventType) {
  @Authorized('events:read')
  @Query(() => EventList)
  events(
    @Arg('business', () => ID) business: string,
    @Args(() => EventListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return findPage<Event, EventType>(em, Event, { scope: { business }, args, present: presentEvent });
  }

  @Authorized('events:read')
  @Query(() => EventType)
  async event(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return presentEvent(await findOwned(em, Event, { kind: 'event', label: 'Event', business, id }));
  }
}
