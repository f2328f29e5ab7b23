import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root, type ClassType } from 'type-graphql';
import { isScope, type Scope } from '../../auth/scopes.js';
import type { Principal } from '../../auth/principal.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import type { GraphQLContext } from '../../kit/context.js';
import { loadBusiness } from './business.resolver.js';
import { BusinessType } from './business.type.js';

/**
 * The base of the resolver of every object a business owns: its `business` field, resolved through the request's
 * loader, written once. `class SurveyResolver extends BusinessOwnedResolver(SurveyType)` (TypeGraphQL's resolver
 * inheritance: the base is decorated for the object type and only its subclasses are given to the schema).
 */
export function BusinessOwnedResolver<T extends { business: string }>(objectType: ClassType<T>) {
  @Resolver(() => objectType)
  abstract class BusinessOwned {
    @FieldResolver(() => BusinessType)
    business(@Root() owned: T, @Ctx() { loaders }: GraphQLContext): Promise<BusinessType> {
      return loadBusiness(loaders, owned.business);
    }
  }
  return BusinessOwned;
}

type Em = GraphQLContext['em'];

export interface OwnedCrud<T extends { business: string }, E, C extends object, U extends object> {
  type: ClassType<T>;
  /**
   * Field names: `['metric', 'metrics']` gives metrics, metric, createMetric, updateMetric and deleteMetric, guarded
   * by the scopes metrics:read and metrics:write.
   */
  names: [one: string, many: string];
  /** The scopes' resource name when it is not `many`: 'flows' guards feedbackFlows with flows:read and flows:write. */
  scope?: string;
  list: [type: ClassType<object>, args: ClassType<object>];
  inputs: [create: ClassType<C>, update: ClassType<U>];
  descriptions?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', string>>;
  service: {
    list(em: Em, business: string, args: ListArgsValue<object, OrderByValue>): Promise<object>;
    find(em: Em, business: string, id: string): Promise<E>;
    present(row: E): T;
    /** `actor`: the request's verified token, for the writers whose rule depends on who asks (members). */
    create(em: Em, business: string, input: C, actor?: Principal): Promise<T>;
    update(em: Em, business: string, id: string, input: U, actor?: Principal): Promise<T>;
    delete(em: Em, business: string, id: string, actor?: Principal): Promise<string>;
  };
}

/**
 * list/get/create/update/delete of a business's top-level resource, written once; a resolver adds only what is its
 * own (relations, other operations). The schema is the same as with hand-written resolvers: each field is named.
 */
export function OwnedCrudResolver<T extends { business: string }, E, C extends object, U extends object>(crud: OwnedCrud<T, E, C, U>) {
  const { type, names: [one, many], list: [List, ListArgs], inputs: [CreateInput, UpdateInput], service, descriptions: say = {} } = crud;
  const Name = one[0].toUpperCase() + one.slice(1);
  const scopes = { read: `${crud.scope ?? many}:read`, write: `${crud.scope ?? many}:write` };
  if (!isScope(scopes.read) || !isScope(scopes.write)) throw new Error(`No scopes ${scopes.read} and ${scopes.write}: name the resource as its scopes do`);

  @Resolver(() => type)
  abstract class OwnedCrudBase extends BusinessOwnedResolver(type) {
    @Authorized(scopes.read as Scope)
    @Query(() => List, { name: many, description: say.list })
    list(@Arg('business', () => ID) business: string, @Args(() => ListArgs) args: ListArgsValue<object, OrderByValue>, @Ctx() { em }: GraphQLContext) {
      return service.list(em, business, args);
    }

    @Authorized(scopes.read as Scope)
    @Query(() => type, { name: one, description: say.get })
    async get(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em }: GraphQLContext) {
      return service.present(await service.find(em, business, id));
    }

    @Authorized(scopes.write as Scope)
    @Mutation(() => type, { name: `create${Name}`, description: say.create })
    create(@Arg('business', () => ID) business: string, @Arg('input', () => CreateInput) input: C, @Ctx() { em, auth }: GraphQLContext) {
      return service.create(em, business, input, auth);
    }

    @Authorized(scopes.write as Scope)
    @Mutation(() => type, { name: `update${Name}`, description: say.update })
    update(
      @Arg('business', () => ID) business: string,
      @Arg('id', () => ID) id: string,
      @Arg('input', () => UpdateInput) input: U,
      @Ctx() { em, auth }: GraphQLContext,
    ) {
      return service.update(em, business, id, input, auth);
    }

    @Authorized(scopes.write as Scope)
    @Mutation(() => ID, { name: `delete${Name}`, description: say.delete })
    delete(@Arg('business', () => ID) business: string, @Arg('id', () => ID) id: string, @Ctx() { em, auth }: GraphQLContext) {
      return service.delete(em, business, id, auth);
    }
  }
  return OwnedCrudBase;
}
