import { InputType, Field } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { MenuItemType } from './menu-item.type.js';

@InputType('MenuItemWhere')
export class MenuItemWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) name?: StringFilter;
  @Field(() => StringFilter, { nullable: true }) itemId?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const MenuItemOrderBy = orderByInput('MenuItemOrderBy', { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' });
export const MenuItemListArgs = listArgs(MenuItemWhere, MenuItemOrderBy);
export const MenuItemList = listType(MenuItemType, 'MenuItemList');
export const MENU_ITEM_COLUMNS = { itemId: 'externalItemId' };
