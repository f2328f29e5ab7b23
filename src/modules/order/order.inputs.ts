import { Field, InputType, Int } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { NumberFilter, StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import type { OrderStatus } from './order.entity.js';
import { OrderStatusEnum, OrderType } from './order.type.js';

/** A number, or a money string such as "Rs. 1,250.00": parsed by the shared order normalisation. */
export const MoneyInput = new GraphQLScalarType({
  name: 'MoneyInput',
  description: 'An amount: a number, or a string from which currency symbols and separators are removed ("Rs. 1,250.00").',
  parseValue: (value) => {
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new GraphQLError('MoneyInput must be a number or a string');
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.STRING) return ast.value;
    throw new GraphQLError('MoneyInput must be a number or a string');
  },
  serialize: (value) => value,
});

@InputType('OrderItemInput')
export class OrderItemInput {
  @Field(() => String, { nullable: true }) itemId?: string | null;
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => Int, { nullable: true }) quantity?: number | null;
  @Field(() => MoneyInput, { nullable: true }) unitPrice?: number | string | null;
  @Field(() => MoneyInput, { nullable: true }) totalPrice?: number | string | null;
  @Field(() => MoneyInput, { nullable: true, description: 'From 0 to 100; a number or a string ("16", "16%").' }) salesTaxPercent?: number | string | null;
  @Field(() => MoneyInput, { nullable: true }) salesTaxAmount?: number | string | null;
  @Field(() => String, { nullable: true }) itemComment?: string | null;
}

/** The custom webhook's fields, plus `status` in place of `payment`. */
@InputType('CreateOrderInput')
export class CreateOrderInput {
  @Field() externalOrderId!: string;
  @Field(() => String, { nullable: true }) externalLocationId?: string | null;
  @Field(() => String, { nullable: true }) externalBrandId?: string | null;
  @Field(() => MoneyInput) total!: number | string;
  @Field(() => MoneyInput, { nullable: true }) subtotal?: number | string | null;
  @Field(() => MoneyInput, { nullable: true }) deliveryCharge?: number | string | null;
  @Field() currency!: string;
  @Field(() => String, { nullable: true }) channel?: string | null;
  @Field(() => OrderStatusEnum, { nullable: true, description: 'Default PENDING.' }) status?: OrderStatus;
  @Field(() => String, { nullable: true }) customerName?: string | null;
  @Field(() => String, { nullable: true }) customerEmail?: string | null;
  @Field(() => String, { nullable: true }) customerPhoneNumber?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String to string.' }) metadata?: Record<string, unknown>;
  @Field(() => [OrderItemInput], { nullable: true, description: 'Lines without name and itemId are ignored.' }) items?: OrderItemInput[];
}

/** The order's identity (external ids) and its lines are fixed at creation. */
export const UpdateOrderInput = updateInputOf('UpdateOrderInput', CreateOrderInput, {
  omit: ['externalOrderId', 'externalLocationId', 'items'],
  descriptions: { status: 'PENDING -> ACCEPTED only.' },
});
export type UpdateOrderInput = InstanceType<typeof UpdateOrderInput>;

export const [OrderList, OrderListArgs] = listInputs('Order', OrderType, {
  where: {
    status: StringFilter,
    channel: StringFilter,
    source: StringFilter,
    externalOrderId: StringFilter,
    externalLocationId: StringFilter,
    currency: StringFilter,
    customerName: StringFilter,
    total: NumberFilter,
    updatedAt: TimestampFilter,
  },
  orderBy: ['createdAt', 'updatedAt', 'total', 'status', 'externalOrderId'],
});
