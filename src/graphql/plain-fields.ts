import { getMetadataStorage } from 'type-graphql';
import { isObjectType, type GraphQLSchema } from 'graphql';

type ParamMeta = { kind: string; index: number; propertyName?: string; getType?: () => unknown };
type FieldResolverMeta = {
  kind: string;
  target: Function;
  methodName: string;
  schemaName: string;
  getObjectType?: () => Function;
  params?: ParamMeta[];
  roles?: unknown[];
  middlewares?: unknown[];
};

/**
 * The part of type-graphql's metadata read here (not in its public types). Filled by buildSchema, which builds a
 * shallow clone whose field definitions are these same objects, so changing a field's `resolve` changes the schema.
 */
const storage = () =>
  getMetadataStorage() as unknown as {
    objectTypes: { name: string; target: Function }[];
    fields: { target: Function; name: string; schemaName: string; roles?: unknown[]; middlewares?: unknown[] }[];
    fieldResolvers: FieldResolverMeta[];
  };

/**
 * type-graphql puts a resolver on every plain `@Field` (it builds a resolver-data object and a closure per call, to
 * run middlewares and `@Authorized` on fields): on a page of 50 surveys x 5 steps x 3 metrics that is about 4,000
 * calls that only read a property. A field with no roles, no middleware, no field resolver and the same name in the
 * schema as on the class gets no resolver at all: GraphQL's default reads the property (and graphql-jit inlines the
 * read). The same as type-graphql's own `simple: true`, decided from the metadata so no module has to remember it;
 * a field that gains `@Authorized` or `@UseMiddleware` keeps its wrapper. Returns how many fields were made plain.
 */
export function dropTrivialResolvers(schema: GraphQLSchema): number {
  const { objectTypes, fields, fieldResolvers } = storage();
  let dropped = 0;
  for (const meta of objectTypes) {
    const type = schema.getType(meta.name);
    if (!isObjectType(type)) continue;
    const chain: Function[] = [];
    for (let c = meta.target; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.push(c);
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve) continue;
      const def = chain.map((c) => fields.find((f) => f.target === c && f.schemaName === field.name)).find(Boolean);
      if (!def || def.name !== def.schemaName || def.roles !== undefined || !Array.isArray(def.middlewares) || def.middlewares.length) continue;
      const resolved = fieldResolvers.some((r) => r.methodName === field.name && chain.includes(r.getObjectType?.() as Function));
      if (resolved) continue;
      field.resolve = undefined;
      dropped++;
    }
  }
  return dropped;
}

type Read = (root: unknown, context: Record<string, unknown>, info: unknown) => unknown;

/**
 * A field resolver method of a resolver class (`@FieldResolver steps(@Root() s, @Ctx() { loaders })`) runs through
 * type-graphql's wrapper on every call: it sorts the parameters, copies the root into a new instance of its class
 * (`@Root()`'s reflected type) and builds a resolver-data object; on the three-level page that is 300 calls of
 * allocation and sorting for nothing. A method whose parameters are only the root, the context and the info, and
 * that has no roles and no middleware, is called directly instead, with the same arguments. A root whose class has
 * behaviour (methods, accessors) or defaults the copy would add is left to type-graphql, as is any method of a
 * resolver whose constructor takes arguments. No global middleware is used (buildAppSchema passes none).
 * Returns how many field resolvers are called directly.
 */
export function callFieldResolversDirectly(schema: GraphQLSchema, resolverClasses: readonly Function[]): number {
  const { objectTypes, fieldResolvers } = storage();
  let direct = 0;
  for (const meta of fieldResolvers) {
    // The target may be a base a resolver extends (BusinessOwnedResolver's `business`): methods are inherited.
    const used = resolverClasses.some((c) => c === meta.target || Object.prototype.isPrototypeOf.call(meta.target, c));
    if (meta.kind !== 'external' || !used || meta.target.length) continue;
    if (meta.roles !== undefined || meta.middlewares?.length || !meta.params) continue;
    const objectClass = meta.getObjectType?.();
    const typeName = objectTypes.find((o) => o.target === objectClass)?.name;
    const type = typeName ? schema.getType(typeName) : undefined;
    const field = isObjectType(type) ? type.getFields()[meta.schemaName] : undefined;
    if (!field?.resolve) continue;
    const reads = [...meta.params].sort((a, b) => a.index - b.index).map(readOf);
    if (reads.some((r) => !r)) continue;
    const instance = new (meta.target as new () => Record<string, (...args: unknown[]) => unknown>)();
    const method = instance[meta.methodName];
    if (typeof method !== 'function') continue;
    const [a, b, c] = reads as Read[];
    field.resolve =
      reads.length === 1 ? (root, _args, ctx, info) => method.call(instance, a(root, ctx, info))
      : reads.length === 2 ? (root, _args, ctx, info) => method.call(instance, a(root, ctx, info), b(root, ctx, info))
      : reads.length === 3 ? (root, _args, ctx, info) => method.call(instance, a(root, ctx, info), b(root, ctx, info), c(root, ctx, info))
      : (root, _args, ctx, info) => method.apply(instance, (reads as Read[]).map((read) => read(root, ctx, info)));
    direct++;
  }
  return direct;
}

/** How a parameter is read without type-graphql, or undefined when it needs type-graphql (args, custom, a class root). */
function readOf(param: ParamMeta): Read | undefined {
  const key = param.propertyName;
  if (param.kind === 'context') return key ? (_root, ctx) => ctx[key] : (_root, ctx) => ctx;
  if (param.kind === 'info') return (_root, _ctx, info) => info;
  if (param.kind !== 'root' || key || !isPlainDataClass(param.getType?.())) return undefined;
  return (root) => root;
}

/** A class whose instances carry data only: copying a plain object into one changes nothing a method could see. */
function isPlainDataClass(type: unknown): boolean {
  // No reflected type, or a plain object: type-graphql would pass the root as it is.
  if (type === undefined || type === Object) return true;
  if (typeof type !== 'function' || [String, Number, Boolean, Date, Array, Promise].includes(type as never)) return false;
  for (let proto = type.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (Object.getOwnPropertyNames(proto).some((name) => name !== 'constructor')) return false;
  }
  const blank = new (type as new () => object)();
  return Object.values(blank).every((value) => value === undefined);
}
