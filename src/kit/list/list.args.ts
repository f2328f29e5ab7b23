import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType, type ClassType } from 'type-graphql';
import type { GraphQLScalarType } from 'graphql';
import { Timestamp } from '../graphql/scalars.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './list.limits.js';

/**
 * The list conventions (docs/architecture.md, "Lists"), written once: typed filter inputs per scalar kind, an `orderBy` input
 * per resource over a whitelist enum, page/pageSize args and the `<Resource>List` envelope. Resources only declare
 * which fields are filterable and sortable; list.query.ts turns the args into one query.
 */
export enum SortOrder {
  asc = 'asc',
  desc = 'desc',
}
registerEnumType(SortOrder, { name: 'SortOrder' });

/**
 * The comparison operators of the filter inputs and the SQL comparison each is (entity.rows.ts writes it); `in`
 * takes a list. `contains` (a case-insensitive substring) is the one operator more, an ILIKE (list.query.ts).
 */
export const COMPARISONS = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=', in: 'in' } as const;
type Comparison = keyof typeof COMPARISONS;
type FilterOperator = Comparison | 'contains';
const ALL_COMPARISONS = Object.keys(COMPARISONS) as Comparison[];

/** `<name> {<operator>: <scalar>}`, every operator optional: the typed filter input of one scalar kind. */
function filterInput(
  name: string,
  scalar: GraphQLScalarType | typeof String | typeof Boolean,
  operators: readonly FilterOperator[],
  description?: string,
): ClassType<object> {
  @InputType(name, { description })
  class Filter {}
  for (const operator of operators) Field(() => (operator === 'in' ? [scalar] : scalar), { nullable: true })(Filter.prototype, operator);
  return Filter;
}

export const StringFilter = filterInput(
  'StringFilter',
  String,
  [...ALL_COMPARISONS, 'contains'],
  'Comparisons on a text field; `contains` is case-insensitive.',
);
export const IDFilter = filterInput('IDFilter', ID, ['eq', 'ne', 'in'], 'Comparisons on a reference to another object.');
export const TimestampFilter = filterInput('TimestampFilter', Timestamp, ALL_COMPARISONS, 'Comparisons on a time, in milliseconds since the Unix epoch.');
export const NumberFilter = filterInput('NumberFilter', Float, ALL_COMPARISONS);
export const BooleanFilter = filterInput('BooleanFilter', Boolean, ['eq', 'ne']);

export interface OrderByValue<F extends string = string> {
  field: F;
  order: SortOrder;
}

/** `<Name> {field: <Name>Field!, order: SortOrder = asc}`; the enum is the whitelist of sortable fields. */
export function orderByInput<E extends Record<string, string>>(name: string, fields: E): ClassType<OrderByValue<E[keyof E]>> {
  registerEnumType(fields, { name: `${name}Field` });
  @InputType(name)
  class OrderBy {
    @Field(() => fields)
    field!: E[keyof E];

    @Field(() => SortOrder, { defaultValue: SortOrder.asc })
    order!: SortOrder;
  }
  return OrderBy;
}

export interface ListArgsValue<W, O> {
  page: number;
  pageSize: number;
  where?: W | null;
  orderBy?: O[] | null;
}

/** page/pageSize/where/orderBy for one resource; a nested list adds its parent with its own @Arg. */
export function listArgs<W extends object, O extends object>(where: ClassType<W>, orderBy: ClassType<O>): ClassType<ListArgsValue<W, O>> {
  @ArgsType()
  class ListArgs {
    @Field(() => Int, { defaultValue: 0, description: 'Page number, from 0.' })
    page!: number;

    @Field(() => Int, { defaultValue: DEFAULT_PAGE_SIZE, description: `Items per page: 1 to ${MAX_PAGE_SIZE}.` })
    pageSize!: number;

    @Field(() => where, { nullable: true, description: 'Every condition must hold.' })
    where?: W | null;

    @Field(() => [orderBy], { nullable: true, description: 'Default: createdAt desc. Ties are broken by id.' })
    orderBy?: O[] | null;
  }
  return ListArgs;
}

export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
  hasMore: boolean;
}

export function listType<T extends object>(item: ClassType<T>, name: string): ClassType<Page<T>> {
  @ObjectType(name, { simpleResolvers: true })
  class List {
    @Field(() => [item])
    data!: T[];

    @Field(() => Int)
    page!: number;

    @Field(() => Int)
    pageSize!: number;

    @Field(() => Int, { description: 'Items matching the filters, over all pages.' })
    total!: number;

    @Field()
    hasMore!: boolean;
  }
  return List;
}
