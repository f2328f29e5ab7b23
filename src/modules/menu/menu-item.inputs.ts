import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { MenuItemType } from './menu-item.type.js';

export const [MenuItemList, MenuItemListArgs] = listInputs('MenuItem', MenuItemType, {
  where: { name: StringFilter, itemId: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
export const MENU_ITEM_COLUMNS = { itemId: 'externalItemId' };
