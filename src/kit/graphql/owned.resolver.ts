import { Arg, Args, Authorized, createParameterDecorator, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root, type ClassType } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { selectedFields } from './selection.js';
import { isScope, type Scope } from '../../auth/scopes.js';
import type { ListArgsValue, OrderByValue } from '../list/list.args.js';
import type { GraphQLContext, WriteContext } from './context.js';
import type { Loaders } from './loaders.js';

/**
 * The tenant every owned object names in its `business` field: its GraphQL type and how a request loads it. The
 * business module gives it (ownedResolvers), as the kit may not import a module (docs/architecture.md, "Layers").
 */
export interface Owner<B extends object> {
  type: ClassType<B>;
  load(loaders: Loaders, id: string): Promise<B>;
}

/**
 * The resolver factories of a business's objects, bound to the owner's type and loader; the business module exports
 * them bound (business.resolver.ts), and every resource's resolver extends one of those.
 */
export function ownedResolvers<B extends object>(owner: Owner<B>) {
  return {
    BusinessOwnedResolver: <T extends { business: string }>(objectType: ClassType<T>) => ownedResolver(owner, objectType),
    OwnedCrudResolver: <T extends { business: string }, E, C extends object, U extends object, One extends string>(
      type: ClassType<T>,
      inputs: CrudInputs<Capitalize<One>, C, U>,
      service: CrudService<false, T, E, C, U>,
      options: CrudOptions<One, T>,
    ) => CrudResolver(owner, undefined, type, inputs, service, options),
    NestedCrudResolver: <T extends { business: string }, E, C extends object, U extends object, One extends string>(
      parent: string,
      type: ClassType<T>,
      inputs: CrudInputs<Capitalize<One>, C, U>,
      service: CrudService<true, T, E, C, U>,
      options: CrudOptions<One, T>,
    ) => CrudResolver(owner, parent, type, inputs, service, options),
  };
}

/**
 * The base of the resolver of every object a business owns: its `business` field, resolved through the request's
 * loader, written once. `class SurveyResolver extends BusinessOwnedResolver(SurveyType)` (TypeGraphQL's resolver
 * inheritance: the base is decorated for the object type and only its subclasses are given to the schema).
 */
function ownedResolver<B extends object, T extends { business: string }>(owner: Owner<B>, objectType: ClassType<T>) {
  @Resolver(() => objectType)
  abstract class BusinessOwned {
    @FieldResolver(() => owner.type)
    business(@Root() owned: T, @Ctx() { loaders }: GraphQLContext): Promise<B> {
      return owner.load(loaders, owned.business);
    }
  }
  return BusinessOwned;
}

type Em = GraphQLContext['em'];
type ListArgs = ListArgsValue<object, OrderByValue>;

/** A service's arguments for a row: its business, and for a nested resource its parent's id too, then `rest`. */
type At<Nested extends boolean, Rest extends unknown[]> = Nested extends true ? [business: string, parent: string, ...Rest] : [business: string, ...Rest];

/**
 * A resource's operations by role, as its service module exports them (`crud`). What it leaves out is not in the
 * schema: a read-only resource gives list, find and present only; orders have no delete.
 */
export interface CrudService<Nested extends boolean, T, E, C, U> {
  list(em: Em, ...at: At<Nested, [args: ListArgs]>): Promise<object>;
  find(em: Em, ...at: At<Nested, [id: string]>): Promise<E>;
  present(row: E): T;
  /** `ctx`: who asks (`auth`, for the writers whose rule depends on it: members) and the process's services. */
  create?(em: Em, ...at: At<Nested, [input: C, ctx: WriteContext]>): Promise<T>;
  update?(em: Em, ...at: At<Nested, [id: string, input: U, ctx: WriteContext]>): Promise<T>;
  delete?(em: Em, ...at: At<Nested, [id: string, ctx: WriteContext]>): Promise<string>;
}

/**
 * The resource's inputs module, found by the names of the list conventions: `<Name>List`, `<Name>ListArgs` and, when
 * the service writes, `Create<Name>Input` and `Update<Name>Input` (Name: the singular field name, capitalised).
 */
export type CrudInputs<Name extends string, C extends object, U extends object> = Record<`${Name}List` | `${Name}ListArgs`, ClassType<object>> &
  Partial<Record<`Create${Name}Input`, ClassType<C>> & Record<`Update${Name}Input`, ClassType<U>>>;

export interface CrudOptions<One extends string, T = never> {
  /**
   * Field names: `['metric', 'metrics']` gives metrics, metric, createMetric, updateMetric and deleteMetric, guarded
   * by the scopes metrics:read and metrics:write.
   */
  names: [one: One, many: string];
  /** The scopes' resource name when it is not `many`: 'flows' guards feedbackFlows with flows:read and flows:write. */
  scope?: string;
  descriptions?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', string>>;
  /**
   * Fields of the type filled from other rows for all the objects of an answer at once (a step's metrics), when the
   * answer selects one of them: one load per answer where a field resolver is a call, a promise and a load per object. Whatever else answers with such objects fills them the same way.
   */
  filled?: Filled<T>;
}

/**
 * The fields selected inside an answer's objects (the names, as selectedFields gives them), or with `under`, a path
 * of field names, inside their fields at that path ('steps', 'steps.metrics').
 */
export type Selection = (under?: string) => ReadonlySet<string>;

export interface Filled<T> {
  fields: readonly string[];
  fill(objects: T[], context: GraphQLContext, selection: Selection): Promise<unknown>;
}

/** Runs `filled` on `objects` when their selection asks for one of its fields. */
export async function fillSelected<T>(filled: Filled<T> | undefined, objects: T[], selection: Selection, context: GraphQLContext): Promise<void> {
  if (!filled || !objects.length) return;
  const selected = selection();
  if (filled.fields.some((field) => selected.has(field))) await filled.fill(objects, context, selection);
}

/** The Selection of the objects a resolver's field answers with. */
export const selectionOf =
  (info: GraphQLResolveInfo): Selection =>
  (under = '') =>
    selectedFields(info, under);

/** The Selection of the objects in the field `field` of those `selection` is of. */
export const inside =
  (selection: Selection, field: string): Selection =>
  (under = '') =>
    selection(under ? `${field}.${under}` : field);

/** Applies the decorators only when the service offers the operation: a service without `delete` has no deleteX. */
function offered(operation: unknown, ...decorators: MethodDecorator[]): MethodDecorator {
  return (target, key, descriptor) => {
    if (!operation) return;
    // Last first, as TypeScript applies decorators stacked on a method.
    for (const decorate of [...decorators].reverse()) decorate(target, key, descriptor);
  };
}

/**
 * list/get/create/update/delete of a business's top-level resource (OwnedCrudResolver), or with `parent`, of one
 * owned through a parent of the business (NestedCrudResolver: a survey's steps, a webhook's deliveries; every
 * operation takes the parent's id as the argument `parent` names, after `business`), written once; a resolver adds
 * only what is its own (relations, other operations). The schema is the same as with hand-written resolvers: each
 * field is named. `class MetricResolver extends OwnedCrudResolver(MetricType, inputs, metrics.crud, { names: ['metric', 'metrics'] })`
 */
function CrudResolver<B extends object, T extends { business: string }>(
  ownedBy: Owner<B>,
  parent: string | undefined,
  type: ClassType<T>,
  inputs: object,
  service: { present(row: unknown): T } & Partial<Record<'list' | 'find' | 'create' | 'update' | 'delete', unknown>>,
  { names: [one, many], scope = many, descriptions: say = {}, filled }: CrudOptions<string, T>,
) {
  const Name = one[0].toUpperCase() + one.slice(1);
  const writes = !!(service.create || service.update || service.delete);
  const scopes = { read: `${scope}:read`, write: `${scope}:write` };
  if (!isScope(scopes.read) || (writes && !isScope(scopes.write)))
    throw new Error(`No scopes ${scopes.read} and ${scopes.write}: name the resource as its scopes do`);
  const inputClass = (name: string) => {
    const found = (inputs as Record<string, ClassType<object> | undefined>)[name];
    if (!found) throw new Error(`The inputs of ${Name} do not export ${name}`);
    return found;
  };
  // Called with the owner's ids spread in front: the public signatures above check each service's parameters.
  const run = service as unknown as Record<'list' | 'find' | 'create' | 'update' | 'delete', (em: Em, ...args: unknown[]) => Promise<unknown>>;
  /** The parent's id of a nested resource; a top-level one has no such argument (the value is undefined). */
  const ParentArg = parent ? Arg(parent, () => ID) : createParameterDecorator(() => undefined);
  const owner = (business: string, parentId: string | undefined) => (parent ? [business, parentId] : [business]);
  const filledOne = async (object: T, context: GraphQLContext, info: GraphQLResolveInfo) => {
    await fillSelected(filled, [object], selectionOf(info), context);
    return object;
  };

  @Resolver(() => type)
  abstract class CrudBase extends ownedResolver(ownedBy, type) {
    @Authorized(scopes.read as Scope)
    @Query(() => inputClass(`${Name}List`), { name: many, description: say.list })
    async list(
      @Arg('business', () => ID) business: string,
      @ParentArg parentId: string | undefined,
      @Args(() => inputClass(`${Name}ListArgs`)) args: ListArgs,
      @Ctx() context: GraphQLContext,
      @Info() info: GraphQLResolveInfo,
    ) {
      const page = (await run.list(context.em, ...owner(business, parentId), args)) as { data: T[] };
      await fillSelected(filled, page.data, inside(selectionOf(info), 'data'), context);
      return page;
    }

    @Authorized(scopes.read as Scope)
    @Query(() => type, { name: one, description: say.get })
    async get(
      @Arg('business', () => ID) business: string,
      @ParentArg parentId: string | undefined,
      @Arg('id', () => ID) id: string,
      @Ctx() context: GraphQLContext,
      @Info() info: GraphQLResolveInfo,
    ) {
      return filledOne(service.present(await run.find(context.em, ...owner(business, parentId), id)), context, info);
    }

    @offered(
      service.create,
      Authorized(scopes.write as Scope),
      Mutation(() => type, { name: `create${Name}`, description: say.create }),
    )
    async create(
      @Arg('business', () => ID) business: string,
      @ParentArg parentId: string | undefined,
      @Arg('input', () => inputClass(`Create${Name}Input`)) input: object,
      @Ctx() context: GraphQLContext,
      @Info() info: GraphQLResolveInfo,
    ) {
      return filledOne((await run.create(context.em, ...owner(business, parentId), input, context)) as T, context, info);
    }

    @offered(
      service.update,
      Authorized(scopes.write as Scope),
      Mutation(() => type, { name: `update${Name}`, description: say.update }),
    )
    async update(
      @Arg('business', () => ID) business: string,
      @ParentArg parentId: string | undefined,
      @Arg('id', () => ID) id: string,
      @Arg('input', () => inputClass(`Update${Name}Input`)) input: object,
      @Ctx() context: GraphQLContext,
      @Info() info: GraphQLResolveInfo,
    ) {
      return filledOne((await run.update(context.em, ...owner(business, parentId), id, input, context)) as T, context, info);
    }

    @offered(
      service.delete,
      Authorized(scopes.write as Scope),
      Mutation(() => ID, { name: `delete${Name}`, description: say.delete }),
    )
    delete(
      @Arg('business', () => ID) business: string,
      @ParentArg parentId: string | undefined,
      @Arg('id', () => ID) id: string,
      @Ctx() context: GraphQLContext,
    ) {
      return run.delete(context.em, ...owner(business, parentId), id, context);
    }
  }
  return CrudBase;
}
