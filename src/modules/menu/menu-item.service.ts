import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { MenuItem } from './menu-item.entity.js';
import type { MenuItemType } from './menu-item.type.js';
import { MENU_ITEM_COLUMNS } from './menu-item.inputs.js';
import { menuNames } from './menu-item.repo.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

export const presentMenuItem = ownedPresenter<MenuItem, MenuItemType>('menuitem', { name: 'name', itemId: 'externalItemId?' });

const findMenuItem = (em: EntityManager, business: string, id: string) => findOwned(em, MenuItem, { kind: 'menuItem', label: 'Menu item', business, id });

function listMenuItems(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<MenuItem, MenuItemType>(em, MenuItem, { scope: { business }, args, columns: MENU_ITEM_COLUMNS, present: presentMenuItem });
}

/**
 * The dishes the text analysis looks for in comments: the newest MENU_FOR_TEXTS menu items, id and name. Menu items
 * come from every order's lines, so a menu can grow without end; the analysis runs on the request's thread and must
 * stay bounded whatever the menu holds.
 */
const MENU_FOR_TEXTS = 1_000;
export const menuOf = (em: EntityManager, business: string) => menuNames(em, business, MENU_FOR_TEXTS);

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listMenuItems, find: findMenuItem, present: presentMenuItem };
