/** The menu module's door: what other modules and the doors use of it. Its other files are its own. */
export { MenuItem } from './menu-item.entity.js';
export { MenuItemResolver } from './menu-item.resolver.js';
export { menuOf, presentMenuItem } from './menu-item.service.js';
export { MenuItemType } from './menu-item.type.js';
