import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import { MenuItemType } from './menu-item.type.js';
import * as inputs from './menu-item.inputs.js';
import * as menu from './menu-item.service.js';

/** Read-only: menu items are created by order ingestion. */
@Resolver(() => MenuItemType)
export class MenuItemResolver extends OwnedCrudResolver(MenuItemType, inputs, menu.crud, { names: ['menuItem', 'menuItems'], scope: 'orders' }) {}
