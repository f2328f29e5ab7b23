import { Arg, Args, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/context.js';
import { BusinessOwnedResolver } from '../business/business-owned.resolver.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { MenuItemType } from './menu-item.type.js';
import { MenuItemList, MenuItemListArgs } from './menu-item.inputs.js';
import * as menu from './menu-item.service.js';

/** Read-only: menu items are created by order ingestion. */
@Resolver(() => MenuItemType)
export class MenuItemResolver extends BusinessOwnedResolver(MenuItemType) {
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
}
