import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { findOwned, loadBusiness } from '../../graphql/resource.js';
import { findPage } from '../../graphql/list.query.js';
import type { ListArgsValue, OrderByValue } from '../../graphql/list.args.js';
import { BusinessType } from '../business/business.type.js';
import { Event } from './event.entity.js';
import { presentEvent } from './event.service.js';
import { EventType } from './event.type.js';
import { EventList, EventListArgs } from './event.inputs.js';

/** Read-only: events are written by the changes they record. */
@Resolver(() => EventType)
export class EventResolver {
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
    return presentEvent(await findOwned(em, Event, 'event', 'Event', business, id));
  }

  @FieldResolver(() => BusinessType)
  business(@Root() event: EventType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, event.business);
  }
}
