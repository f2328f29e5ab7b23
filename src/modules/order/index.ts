/** The order module's door: what other modules and the doors use of it. Its other files are its own. */
export { normaliseEmail, normalisePhone } from './order-normalise.rules.js';
export { OrderWriter } from './order-writer.service.js';
export type { OrderTrigger } from './order-writer.service.js';
export { ORDER_CHANNELS, Order } from './order.entity.js';
export { orderJson, orderPath, presentOrder } from './order.presenter.js';
export type { OrderRecord } from './order.presenter.js';
export { orderDishes } from './order.repo.js';
export type { OrderDish } from './order.repo.js';
export { OrderItemResolver, OrderResolver } from './order.resolver.js';
export { MAX_ORDER_ITEMS, readNewOrder } from './order.rules.js';
export { findOrder } from './order.service.js';
export { OrderType } from './order.type.js';
