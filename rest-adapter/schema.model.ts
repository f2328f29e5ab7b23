import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  isUnionType,
  GraphQLInputObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { LIST_PARAMETERS, type ExpandGraph, type ListConventions } from './query.parsers.js';
import { isQueryRoute, type RouteDef } from './route.table.js';

/** What the schema says about one route: its root field, the resource type, and for lists the conventions. */
export interface RouteModel {
  route: RouteDef;
  operation: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  /** The resource type of each item (SurveyList.data's Survey), or undefined for scalar answers (delete). */
  itemType?: GraphQLObjectType;
  /** The types a union answer may be (POST members: a Member or an Invitation); each names itself in `object`. */
  variants?: readonly GraphQLObjectType[];
  conventions?: ListConventions;
  whereType?: GraphQLInputObjectType;
  inputType?: GraphQLInputObjectType;
  graph?: ExpandGraph;
  /** Query parameters the route takes. */
  parameters: string[];
}

/** A relation is an object type with an id (Survey, Metric); one without (MetricScale, StepMetrics) is embedded. */
export const isRelationType = (type: GraphQLObjectType) => 'id' in type.getFields();

/** Object-valued fields (relations and embedded objects) without arguments: what `expand` may name. */
function objectFields(type: GraphQLObjectType): [string, GraphQLObjectType][] {
  const out: [string, GraphQLObjectType][] = [];
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    if (!field.args.length && isObjectType(named)) out.push([field.name, named]);
  }
  return out;
}

function expandGraph(root: GraphQLObjectType): ExpandGraph {
  const types: ExpandGraph['types'] = {};
  const visit = (type: GraphQLObjectType) => {
    if (types[type.name]) return;
    types[type.name] = {};
    for (const [name, child] of objectFields(type)) {
      types[type.name][name] = child.name;
      visit(child);
    }
  };
  visit(root);
  return { root: root.name, types };
}

function listConventions(field: GraphQLField<unknown, unknown>): { conventions: ListConventions; whereType?: GraphQLInputObjectType } {
  const where = field.args.find((a) => a.name === 'where');
  const orderBy = field.args.find((a) => a.name === 'orderBy');
  const whereType = where && getNamedType(where.type);
  const orderType = orderBy && getNamedType(orderBy.type);
  const filterFields: Record<string, string[]> = {};
  if (whereType && isInputObjectType(whereType)) {
    for (const f of Object.values(whereType.getFields())) {
      const filter = getNamedType(f.type);
      if (isInputObjectType(filter)) filterFields[f.name] = Object.keys(filter.getFields());
    }
  }
  let sortFields: string[] = [];
  if (orderType && isInputObjectType(orderType)) {
    const enumType = getNamedType(orderType.getFields().field.type);
    if (isEnumType(enumType)) sortFields = enumType.getValues().map((v) => v.name);
  }
  return { conventions: { sortFields, filterFields }, whereType: whereType && isInputObjectType(whereType) ? whereType : undefined };
}

export function routeModel(schema: GraphQLSchema, route: RouteDef): RouteModel {
  const isQuery = isQueryRoute(route);
  const root = isQuery ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[route.field];
  if (!field) throw new Error(`REST route ${route.method} ${route.path}: no GraphQL field ${route.field}`);
  for (const arg of Object.values(route.params)) {
    if (!field.args.some((a) => a.name === arg)) throw new Error(`REST route ${route.method} ${route.path}: ${route.field} has no argument ${arg}`);
  }
  const model: RouteModel = { route, operation: isQuery ? 'query' : 'mutation', field, parameters: [] };
  let returned = getNamedType(field.type);
  if (route.kind === 'compute') {
    if (!isObjectType(returned)) throw new Error(`${route.field} does not answer objects`);
    model.itemType = returned;
    model.inputType = bodyType(field, new Set(Object.values(route.params)));
    return model;
  }
  if (route.kind === 'report') {
    if (!isObjectType(returned)) throw new Error(`${route.field} does not answer objects`);
    const pathArgs = new Set(Object.values(route.params));
    model.itemType = returned;
    model.parameters = [...field.args.filter((a) => !pathArgs.has(a.name)).map((a) => a.name), 'format'];
    return model;
  }
  if (route.kind === 'list') {
    if (!isObjectType(returned)) throw new Error(`${route.field} is not a list type`);
    returned = getNamedType(returned.getFields().data.type);
    const { conventions, whereType } = listConventions(field);
    model.conventions = conventions;
    model.whereType = whereType;
    model.parameters = [...LIST_PARAMETERS];
  }
  if (isObjectType(returned)) {
    model.itemType = returned;
    model.graph = expandGraph(returned);
    if (route.kind !== 'list' && objectFields(returned).length) model.parameters = ['expand'];
  } else if (isUnionType(returned)) {
    model.variants = returned.getTypes();
  }
  const input = field.args.find((a) => a.name === 'input');
  if (input) {
    const type = getNullableType(input.type);
    if (isInputObjectType(type)) model.inputType = type;
  }
  return model;
}

/** A compute route's body: the field's arguments other than the path's, as one input type (checked and documented as such). */
function bodyType(field: GraphQLField<unknown, unknown>, pathArgs: Set<string>): GraphQLInputObjectType {
  const name = `${field.name[0].toUpperCase()}${field.name.slice(1)}Body`;
  const args = field.args.filter((a) => !pathArgs.has(a.name));
  return new GraphQLInputObjectType({ name, fields: Object.fromEntries(args.map((a) => [a.name, { type: a.type, description: a.description }])) });
}

export const isListField = (field: { type: unknown }) => isListType(getNullableType(field.type as never));
