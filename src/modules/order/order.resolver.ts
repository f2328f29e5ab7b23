import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { MenuItemType } from '../menu/menu-item.type.js';
import { presentMenuItem } from '../menu/menu-item.service.js';
import { MenuItem } from '../menu/menu-item.entity.js';
import { OrderItem } from './order-item.entity.js';
import { OrderItemType, OrderType } from './order.type.js';
import { CreateOrderInput, OrderList, OrderListArgs, UpdateOrderInput } from './order.inputs.js';
import * as orders from './order.service.js';
import { presentOrder, presentOrderItem } from './order.presenter.js';

@Resolver(() => OrderType)
export class OrderResolver extends BusinessOwnedResolver(OrderType) {
  @Authorized('orders:read')
  @Query(() => OrderList)
  orders(
    @Arg('business', () => ID) business: string,
    @Args(() => OrderListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return orders.listOrders(em, business, args);
  }

  @Authorized('orders:read')
  @Query(() => OrderType)
  async order(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return presentOrder(await orders.findOrder(em, business, id));
  }

  @Authorized('orders:write')
  @Mutation(() => OrderType, { description: 'CONFLICT when the business already has this externalOrderId at this externalLocationId.' })
  createOrder(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => CreateOrderInput) input: CreateOrderInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return orders.createOrder(em, business, input);
  }

  @Authorized('orders:write')
  @Mutation(() => OrderType)
  updateOrder(
    @Arg('business', () => ID) business: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateOrderInput) input: UpdateOrderInput,
    @Ctx() { em }: GraphQLContext,
  ) {
    return orders.updateOrder(em, business, id, input);
  }

  @FieldResolver(() => [OrderItemType], { description: 'In the order sent.' })
  async items(@Root() order: OrderType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.byForeignKey(OrderItem, 'order', { orderBy: [{ position: 'asc' }, { id: 'asc' }] }).load(order.id)).map(presentOrderItem);
  }
}

@Resolver(() => OrderItemType)
export class OrderItemResolver extends BusinessOwnedResolver(OrderItemType) {
  @FieldResolver(() => MenuItemType, { nullable: true })
  async menuItem(@Root() item: OrderItemType, @Ctx() { loaders }: GraphQLContext) {
    if (!item.menuItem) return null;
    const menuItem = await loaders.byId(MenuItem).load(item.menuItem);
    return menuItem ? presentMenuItem(menuItem) : null;
  }
}
