import { getMetadataStorage } from 'type-graphql';
import { isObjectType, type GraphQLSchema } from 'graphql';

/**
 * type-graphql puts a resolver on every plain `@Field` (it builds a resolver-data object and a closure per call, to
 * run middlewares and `@Authorized` on fields): on a page of 50 surveys x 5 steps x 3 metrics that is about 4,000
 * calls that only read a property. A field with no roles, no middleware, no field resolver and the same name in the
 * schema as on the class gets no resolver at all: GraphQL's default reads the property (and graphql-jit inlines the
 * read). The same as type-graphql's own `simple: true`, decided from the metadata so no module has to remember it;
 * a field that gains `@Authorized` or `@UseMiddleware` keeps its wrapper. Returns how many fields were made plain.
 */
export function dropTrivialResolvers(schema: GraphQLSchema): number {
  // Filled by buildSchema (it builds a shallow clone whose field definitions are these same objects).
  const storage = getMetadataStorage() as unknown as {
    objectTypes: { name: string; target: Function }[];
    fields: { target: Function; name: string; schemaName: string; roles?: unknown[]; middlewares?: unknown[] }[];
    fieldResolvers: { methodName: string; getObjectType?: () => Function }[];
  };
  let dropped = 0;
  for (const meta of storage.objectTypes) {
    const type = schema.getType(meta.name);
    if (!isObjectType(type)) continue;
    const chain: Function[] = [];
    for (let c = meta.target; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.push(c);
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve) continue;
      const def = chain.map((c) => storage.fields.find((f) => f.target === c && f.schemaName === field.name)).find(Boolean);
      if (!def || def.name !== def.schemaName || def.roles !== undefined || !Array.isArray(def.middlewares) || def.middlewares.length) continue;
      const resolved = storage.fieldResolvers.some((r) => r.methodName === field.name && chain.includes(r.getObjectType?.() as Function));
      if (resolved) continue;
      field.resolve = undefined;
      dropped++;
    }
  }
  return dropped;
}
