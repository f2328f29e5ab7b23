import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { loadBusiness } from '../../graphql/resource.js';
import type { ListArgsValue, OrderByValue } from '../../graphql/list.args.js';
import { BusinessType } from '../business/business.type.js';
import { MenuItemType } from './menu-item.type.js';
import { MenuItemList, MenuItemListArgs } from './menu-item.inputs.js';
import * as menu from './menu-item.service.js';

/** Read-only: menu items are created by order ingestion. */
@Resolver(() => MenuItemType)
export class MenuItemResolver {
  @Authorized('orders:read')
  @Query(() => MenuItemList)
  menuItems(
    @Arg('business', () => ID) business: string,
    @Args(() => MenuItemListArgs) args: ListArgsValue<object, OrderByValue>,
    @Ctx() { em }: GraphQLContext,
  ) {
    return menu.listMenuItems(em, business, args);
  }

  @Authorized('orders:read')
  @Query(() => MenuItemType)
  async menuItem(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
    return menu.presentMenuItem(await menu.findMenuItem(em, business, id));
  }

  @FieldResolver(() => BusinessType)
  business(@Root() item: MenuItemType, @Ctx() ctx: GraphQLContext) {
    return loadBusiness(ctx, item.business);
  }
}
