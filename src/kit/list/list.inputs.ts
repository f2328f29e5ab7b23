import { Field, InputType, type ClassType } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, TimestampFilter } from './list.args.js';

/** A filter input of list.args.ts (StringFilter...), or one with a word on what the field holds. */
type WhereField = ClassType<object> | { filter: ClassType<object>; description: string };

export interface ListInputsOptions {
  /** The filterable fields besides `id` and `createdAt`, which every resource has: `{name: StringFilter}`. */
  where: Record<string, WhereField>;
  /** The sortable fields: the values of the `<Resource>OrderByField` enum. */
  orderBy: readonly string[];
}

/**
 * The list inputs of one resource: `<Resource>Where`, `<Resource>OrderBy`, the list args over them and the
 * `<Resource>List` envelope of `item`. Returned as `[List, ListArgs]`, for the inputs module to export as
 * `<Resource>List` and `<Resource>ListArgs`: the names an owned resource's CRUD looks them up by.
 */
export function listInputs<T extends object>(resource: string, item: ClassType<T>, { where, orderBy }: ListInputsOptions) {
  const Where = whereInput(`${resource}Where`, { id: IDFilter, ...where, createdAt: TimestampFilter });
  const OrderBy = orderByInput(`${resource}OrderBy`, Object.fromEntries(orderBy.map((field) => [field, field])));
  return [listType(item, `${resource}List`), listArgs(Where, OrderBy)] as const;
}

/** `<name> {<field>: <Filter>}`, every condition optional; the input type is the whitelist list.query.ts relies on. */
function whereInput(name: string, fields: Record<string, WhereField>): ClassType<object> {
  @InputType(name)
  class Where {}
  for (const [field, spec] of Object.entries(fields)) {
    const { filter, description } = typeof spec === 'function' ? { filter: spec, description: undefined } : spec;
    Field(() => filter, { nullable: true, description })(Where.prototype, field);
  }
  return Where;
}
