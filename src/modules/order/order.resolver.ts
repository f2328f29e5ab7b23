import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { loadBusiness } from '../../graphql/resource.js';
import type { ListArgsValue, OrderByValue } from '../../graphql/list.args.js';
import { BusinessType } from '../business/business.type.js';
import { MenuItemType } from '../menu/menu-item.type.js';
import { presentMenuItem } from '../menu/menu-item.service.js';
import { OrderItemType, OrderType } from './order.type.js';
import { CreateOrderInput, OrderList, OrderListArgs, UpdateOrderInput } from './order.inputs.js';
import * as orders from './order.service.js';
import { presentOrder, presentOrderItem } from './order.presenter.js';

@Resolver(() => OrderType)
export class OrderResolver {
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

  @FieldResolver(() => BusinessType)
  business(@Root() order: OrderType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, order.business);
  }

  @FieldResolver(() => [OrderItemType], { description: 'In the order sent.' })
  async items(@Root() order: OrderType, @Ctx() { loaders }: GraphQLContext) {
    return (await loaders.itemsByOrder.load(order.id)).map(presentOrderItem);
  }
}

@Resolver(() => OrderItemType)
export class OrderItemResolver {
  @FieldResolver(() => MenuItemType, { nullable: true })
  async menuItem(@Root() item: OrderItemType, @Ctx() { loaders }: GraphQLContext) {
    if (!item.menuItem) return null;
    const menuItem = await loaders.menuItem.load(item.menuItem);
    return menuItem ? presentMenuItem(menuItem) : null;
  }

  @FieldResolver(() => BusinessType)
  business(@Root() item: OrderItemType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, item.business);
  }
}
