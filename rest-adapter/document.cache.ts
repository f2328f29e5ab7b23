import { getNamedType, isObjectType, parse, validate, specifiedRules, type DocumentNode, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { RouteModel } from './schema.model.js';
import { buildSelection, expandTree, type ObjectPlan } from './selection.builder.js';

export interface CompiledDocument {
  text: string;
  document: DocumentNode;
  /** undefined when the answer is a scalar (delete, disconnect). */
  plan?: ObjectPlan;
  /** A union answer's plan for each of its types, by `__typename`. */
  plans?: Record<string, ObjectPlan>;
}

/** Variables each kind passes besides the path parameters. */
function extraArguments(model: RouteModel): string[] {
  switch (model.route.kind) {
    case 'list':
      return ['page', 'pageSize', 'where', 'orderBy'].filter((a) => model.field.args.some((f) => f.name === a));
    case 'create':
    case 'update':
      return ['input'];
    case 'action':
      return model.inputType ? ['input'] : [];
    case 'report':
      return model.parameters.filter((p) => model.field.args.some((a) => a.name === p));
    case 'compute':
      return Object.keys(model.inputType!.getFields());
    default:
      return [];
  }
}

/** A report row's fields: its leaves, and the leaves of an object field (a row's `previous`) one level down. */
function reportSelection(type: GraphQLObjectType, depth = 0): string {
  return Object.values(type.getFields())
    .map((f) => {
      const named = getNamedType(f.type);
      if (!isObjectType(named)) return f.name;
      return depth ? '' : `${f.name} { ${reportSelection(named, depth + 1)} }`;
    })
    .filter(Boolean)
    .join(' ');
}

/** The GraphQL document of one route and one expand set. */
export function documentText(model: RouteModel, expand: string[]): { text: string; plan?: ObjectPlan; plans?: Record<string, ObjectPlan> } {
  const { route, field } = model;
  const names = [...new Set([...Object.values(route.params), ...extraArguments(model)])];
  const definitions = names.map((name) => {
    const arg = field.args.find((a) => a.name === name)!;
    // A report leaves out what the client did not give: an argument with a default then takes it.
    const type = route.kind === 'report' && arg.defaultValue !== undefined ? arg.type.toString().replace(/!$/, '') : arg.type.toString();
    return `$${name}: ${type}`;
  });
  const args = names.map((name) => `${name}: $${name}`);
  const pathParams = Object.entries(route.params)
    .filter(([param, arg]) => param === arg)
    .map(([param]) => param);
  let body = '';
  let plan: ObjectPlan | undefined;
  let plans: Record<string, ObjectPlan> | undefined;
  if (model.variants) {
    plans = {};
    const fragments = model.variants.map((type) => {
      const selection = buildSelection(type, new Map(), pathParams);
      plans![type.name] = selection.plan;
      return `... on ${type.name} { ${selection.text} }`;
    });
    body = ` { __typename ${fragments.join(' ')} }`;
  } else if ((route.kind === 'report' || route.kind === 'compute') && model.itemType) {
    body = ` { ${reportSelection(model.itemType)} }`;
  } else if (model.itemType) {
    const selection = buildSelection(model.itemType, expandTree(expand), pathParams);
    plan = selection.plan;
    body = route.kind === 'list' ? ` { page pageSize total hasMore data { ${selection.text} } }` : ` { ${selection.text} }`;
  }
  const text = `${model.operation} Rest(${definitions.join(', ')}) { r: ${field.name}(${args.join(', ')})${body} }`;
  return { text, plan, plans };
}

/**
 * Documents parsed and validated once, per (route, expand): a request only looks its document up. Bounded: the
 * number of expand combinations a route takes is finite but can be large, so the oldest entries are dropped.
 */
export class DocumentCache {
  private readonly cache = new Map<string, CompiledDocument>();
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly maxEntries = 2000,
  ) {}

  get size() {
    return this.cache.size;
  }

  get(model: RouteModel, expand: string[], routeKey: string): CompiledDocument {
    const key = expand.length ? `${routeKey}?${expand.join(',')}` : routeKey;
    let compiled = this.cache.get(key);
    if (compiled) return compiled;
    const { text, plan, plans } = documentText(model, expand);
    const document = parse(text);
    const errors = validate(this.schema, document, specifiedRules);
    // Built from the schema itself: a failure is a bug in the adapter, not the client's mistake.
    if (errors.length) throw new Error(`REST document for ${routeKey} is invalid: ${errors.map((e) => e.message).join('; ')}`);
    compiled = { text, document, plan, plans };
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, compiled);
    return compiled;
  }
}
