import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { loadRelated } from '../../kit/graphql/relation.load.js';
import { BusinessOwnedResolver, OwnedCrudResolver, loadBusiness } from '../business/index.js';
import { MenuItemType, presentMenuItem, MenuItem } from '../menu/index.js';
import { OrderItem } from './order-item.entity.js';
import { OrderItemType, OrderType } from './order.type.js';
import * as inputs from './order.inputs.js';
import * as orders from './order.service.js';
import { presentOrderItem, staffOf } from './order.presenter.js';
import type { Parent } from '../../kit/graphql/resource.type.js';

const ITEM_ORDER: Record<string, 'asc' | 'desc'>[] = [{ position: 'asc' }, { id: 'asc' }];

/** Orders are never deleted: orders.crud offers no delete, so there is no deleteOrder. */
@Resolver(() => OrderType)
export class OrderResolver extends OwnedCrudResolver(OrderType, inputs, orders.crud, {
  names: ['order', 'orders'],
  descriptions: { create: 'CONFLICT when the business already has this externalOrderId at this externalLocationId.' },
}) {
  @FieldResolver(() => [OrderItemType], { description: 'In the order sent.' })
  async items(@Root() order: Parent<OrderType>, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(OrderItem, 'order', { orderBy: ITEM_ORDER }).load(order.id)).map(presentOrderItem);
  }

  @FieldResolver()
  async staff(@Root() order: Parent<OrderType>, @Ctx() { loaders }: GraphQLContext): Promise<string | null> {
    // Presented already where the write had the business at hand (presentOrder); GraphQL's reads derive it here.
    if (order.staff !== undefined) return order.staff;
    return staffOf(order.metadata, (await loadBusiness(loaders, order.business)).staffKey);
  }
}

@Resolver(() => OrderItemType)
export class OrderItemResolver extends BusinessOwnedResolver(OrderItemType) {
  @FieldResolver(() => MenuItemType, { nullable: true })
  menuItem(@Root() item: Parent<OrderItemType>, @Ctx() { loaders }: GraphQLContext) {
    return loadRelated(loaders.byId(MenuItem), item.menuItem, presentMenuItem);
  }
}
