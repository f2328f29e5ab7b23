import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { updateRecorded, type RecordedResource } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import { Checks } from '../../shared/validation.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Business, DEFAULT_STAFF_KEY } from '../business/index.js';
import { Order } from './order.entity.js';
import type { OrderType } from './order.type.js';
import type { CreateOrderInput, UpdateOrderInput } from './order.inputs.js';
import { presentOrder, type OrderOwner } from './order.presenter.js';
import { readNewOrder, readOrderChanges } from './order.rules.js';
import type { WriteContext } from '../../kit/graphql/context.js';

export const findOrder = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Order, { kind: 'order', label: 'Order', business, id, lock });

/** The update recipe's view of an order, its answer and event presented with its business's fields (presentOrder). */
const recorded = (owner: OrderOwner): RecordedResource<Order, OrderType> => ({
  resource: 'order',
  find: findOrder,
  present: (order) => presentOrder(order, owner),
});

/** What an order shows of its business: its staffKey (the default, for a business the request could not read). */
const ownerOf = (business: Business | null): OrderOwner => ({ staffKey: business?.staffKey ?? DEFAULT_STAFF_KEY });

function listOrders(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<Order, OrderType>(em, Order, { scope: { business }, args, present: presentOrder });
}

/** A new order from the API: the order-field rules of every door, then the order writer in create mode (409 on a duplicate). */
async function createOrder(em: EntityManager, business: string, input: CreateOrderInput, ctx: WriteContext): Promise<OrderType> {
  const owner = await em.findOne(Business, { id: business });
  const checks = new Checks();
  const fields = readNewOrder(checks, input, 'api', owner?.country);
  checks.throwIfAny();
  const { order } = await ctx.services.orders.write(em, business, ownerOf(owner), fields, 'create');
  return order;
}

async function updateOrder(em: EntityManager, business: string, id: string, input: UpdateOrderInput, ctx: WriteContext): Promise<OrderType> {
  const owner = await em.findOne(Business, { id: business });
  const checks = new Checks();
  const fields = readOrderChanges(checks, { ...input }, owner?.country);
  checks.throwIfAny();
  return updateRecorded(em, recorded(ownerOf(owner)), business, id, async (order, tx) => {
    if (fields.status && fields.status !== order.status && order.status === 'ACCEPTED') {
      throw new AppError('conflict', 'An ACCEPTED order cannot move back to PENDING', [{ field: 'status', message: 'order is ACCEPTED' }]);
    }
    const accepted = fields.status === 'ACCEPTED' && order.status === 'PENDING';
    tx.assign(order, fields);
    // What follows an acceptance (the feedback flows of order.accepted, issue 16), in this same transaction.
    if (accepted) await ctx.services.orders.accepted(tx, business, order);
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listOrders, find: findOrder, present: presentOrder, create: createOrder, update: updateOrder };
