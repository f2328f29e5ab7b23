import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from 'graphql';
import { isListField, isRelationType } from './schema.model.js';

/**
 * Builds the selection of a resource from the schema: every scalar, `{ id }` for a relation that is not expanded,
 * the full object for one that is (recursively), embedded objects (MetricScale, StepMetrics) always. Alongside the
 * text it returns a plan that turns the answer back into REST's shape in one pass, in place.
 *
 * Two kinds of unexpanded relation are not asked of GraphQL at all, because the adapter already knows their id and
 * asking would cost a batch of SQL per request: `business` (the path's business: tenant isolation guarantees every
 * object belongs to it) and a relation back to the parent it was reached from (SurveyStep.survey under
 * Survey.steps) or to a path parameter of the same name (`survey` under /surveys/{survey}/steps).
 */
export interface ObjectPlan {
  refs: { name: string; list: boolean }[];
  nested: { name: string; list: boolean; plan: ObjectPlan }[];
  /** Filled by the adapter: from a path parameter, or the id of the parent object. */
  known: { name: string; param?: string }[];
}

export type ExpandTree = Map<string, ExpandTree>;

export function expandTree(paths: string[]): ExpandTree {
  const root: ExpandTree = new Map();
  for (const path of paths) {
    let node = root;
    for (const segment of path.split('.')) {
      let child = node.get(segment);
      if (!child) node.set(segment, (child = new Map()));
      node = child;
    }
  }
  return root;
}

export interface Selection {
  text: string;
  plan: ObjectPlan;
}

/**
 * `params`: path parameters the route knows (business, survey...). `parent`: the type the object was reached from.
 * `expanded`: relations named by `expand` (and their ancestors).
 */
export function buildSelection(type: GraphQLObjectType, expanded: ExpandTree, params: readonly string[], parent?: GraphQLObjectType): Selection {
  const plan: ObjectPlan = { refs: [], nested: [], known: [] };
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.args.length || field.name.startsWith('__')) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      parts.push(field.name);
      continue;
    }
    if (!isObjectType(named)) continue;
    const list = isListField(field);
    const subtree = expanded.get(field.name);
    if (!isRelationType(named) || subtree) {
      // Embedded objects carry their own relations; an expanded relation: its full object.
      const child = buildSelection(named, subtree ?? new Map(), [], type);
      parts.push(`${field.name} { ${child.text} }`);
      plan.nested.push({ name: field.name, list, plan: child.plan });
      continue;
    }
    if (!list && field.name === 'business' && named.name === 'Business') {
      plan.known.push({ name: field.name, param: 'business' });
    } else if (!list && !parent && params.includes(field.name)) {
      plan.known.push({ name: field.name, param: field.name });
    } else if (!list && parent && named === parent && isRelationType(parent)) {
      plan.known.push({ name: field.name });
    } else {
      parts.push(`${field.name} { id }`);
      plan.refs.push({ name: field.name, list });
    }
  }
  return { text: parts.join(' '), plan };
}

type Json = Record<string, any>;

/** Applies a plan to one object of the answer, in place: ids for `{ id }`, known ids filled, expanded objects recursed. */
export function flatten(object: Json, plan: ObjectPlan, params: Record<string, string>, parentId?: string): Json {
  for (const ref of plan.refs) {
    const value = object[ref.name];
    if (value == null) continue;
    object[ref.name] = ref.list ? value.map((v: Json) => v.id) : value.id;
  }
  if (plan.nested.length) {
    const id = object.id ?? parentId;
    for (const nested of plan.nested) {
      const value = object[nested.name];
      if (value == null) continue;
      if (nested.list) for (const item of value) flatten(item, nested.plan, params, id);
      else flatten(value, nested.plan, params, id);
    }
  }
  for (const known of plan.known) object[known.name] = known.param ? params[known.param] : parentId;
  return object;
}
