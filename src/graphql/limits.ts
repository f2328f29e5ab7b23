import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../kit/list/list.limits.js';
import { MAX_METRICS_PER_STEP, MAX_STEPS_PER_SURVEY } from '../modules/survey/index.js';
import { MAX_ORDER_ITEMS } from '../modules/order/index.js';

export interface QueryLimits {
  /** Nested field levels, root fields being level 1. */
  maxDepth: number;
  /** Estimated fields resolved: each field once per parent item, plus ROOT_FIELD_COST per root field. */
  maxCost: number;
  /** Aliased fields in one document: 2,000 aliases of one cheap field are 2,000 SQL statements. */
  maxAliases: number;
  /** Operations defined in one document (one runs; the rest are parsed and validated for nothing). */
  maxOperations: number;
  /** Lexical tokens of a document, counted while parsing (Apollo's parseOptions.maxTokens): a huge document stops early. */
  maxTokens: number;
}

/** The limits of /graphql; REST routes are held to the same cost (rest-adapter/rest.router.ts). */
export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 8, maxCost: 100_000, maxAliases: 30, maxOperations: 5, maxTokens: 5_000 };

/**
 * Every root field reaches the database (one statement at least, `health { database }` a ping) whatever it selects:
 * it costs this much on top of its fields, so many cheap root fields add up like the statements they run.
 */
const ROOT_FIELD_COST = 10;

/**
 * A relation list has no page size: it is costed at this typical size, or at the most it may hold where that is less
 * (a step's metrics: exactly its bound). A survey's steps and an order's items keep the typical size: costed at their
 * bounds (100, 500) the portal's and the docs' ordinary pages would be refused; the bounds keep what such a list
 * really holds within a known factor of the estimate.
 */
const RELATION_LIST_SIZE = 10;
const RELATION_LIST_BOUNDS: Readonly<Record<string, number>> = {
  'StepMetrics.metrics': MAX_METRICS_PER_STEP,
  'Survey.steps': MAX_STEPS_PER_SURVEY,
  'Order.items': MAX_ORDER_ITEMS,
};
const relationListSize = (type: GraphQLCompositeType, field: string) => Math.min(RELATION_LIST_SIZE, RELATION_LIST_BOUNDS[`${type.name}.${field}`] ?? Infinity);

interface Walk {
  schema: GraphQLSchema;
  getFragment(name: string): FragmentDefinitionNode | null | undefined;
  /** The operation's variables; a page size given by a variable counts at its value. */
  variables: Record<string, unknown>;
  visiting: Set<string>;
  depth: number;
  cost: number;
}

type ArgumentNodes = readonly { name: { value: string }; value: { kind: string; value?: string; name?: { value: string } } }[];

function pageSizeOf(w: Walk, args: ArgumentNodes | undefined): number | undefined {
  const arg = args?.find((a) => a.name.value === 'pageSize');
  if (!arg) return undefined;
  const value = arg.value.kind === Kind.INT ? Number(arg.value.value) : arg.value.kind === Kind.VARIABLE ? w.variables[arg.value.name!.value] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(value, 0), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

function walk(w: Walk, set: SelectionSetNode, type: GraphQLCompositeType, depth: number, multiplier: number, pageSize?: number) {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      // Introspection (Apollo Sandbox's schema query is deep by nature) is bounded by the schema, not by data.
      if (selection.name.value.startsWith('__')) continue;
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const field = type.getFields()[selection.name.value];
      if (!field) continue;
      w.depth = Math.max(w.depth, depth);
      w.cost += multiplier + (depth === 1 ? ROOT_FIELD_COST : 0);
      const ownPageSize = field.args.some((a) => a.name === 'pageSize') ? (pageSizeOf(w, selection.arguments as never) ?? DEFAULT_PAGE_SIZE) : undefined;
      const isList = isListType(getNullableType(field.type));
      const childMultiplier = multiplier * (isList ? (pageSize ?? relationListSize(type, field.name)) : 1);
      const named = getNamedType(field.type);
      if (selection.selectionSet && isCompositeType(named)) {
        walk(w, selection.selectionSet, named, depth + 1, childMultiplier, isList ? undefined : (ownPageSize ?? undefined));
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const cond = selection.typeCondition ? w.schema.getType(selection.typeCondition.name.value) : type;
      if (cond && isCompositeType(cond)) walk(w, selection.selectionSet, cond, depth, multiplier, pageSize);
    } else {
      const name = selection.name.value;
      if (w.visiting.has(name)) continue; // cycles are reported by NoFragmentCyclesRule
      const fragment = w.getFragment(name);
      if (!fragment) continue;
      const cond = w.schema.getType(fragment.typeCondition.name.value);
      w.visiting.add(name);
      if (cond && isCompositeType(cond)) walk(w, fragment.selectionSet, cond, depth, multiplier, pageSize);
      w.visiting.delete(name);
    }
  }
}

function measure(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  getFragment: Walk['getFragment'],
  variables: Record<string, unknown>,
): { depth: number; cost: number } {
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const w: Walk = { schema, getFragment, variables, visiting: new Set(), depth: 0, cost: 0 };
  if (root) walk(w, operation.selectionSet, root, 1, 1);
  return { depth: w.depth, cost: w.cost };
}

/**
 * Depth needs no variables: refused at validation (Apollo answers 400 GRAPHQL_VALIDATION_FAILED, `extensions.limit`
 * says `depth`), before anything runs.
 */
export function queryDepthRule(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const { depth } = measure(context.getSchema(), operation, (name) => context.getFragment(name), {});
      if (depth > limits.maxDepth) {
        context.reportError(
          new GraphQLError(`The operation is nested ${depth} levels deep; the limit is ${limits.maxDepth}`, {
            nodes: [operation],
            extensions: { limit: 'depth', depth, maxDepth: limits.maxDepth },
          }),
        );
      }
    },
  });
}

/**
 * Aliases and operations per document, counted at validation (400 GRAPHQL_VALIDATION_FAILED, `extensions.limit`
 * `aliases` or `operations`) before anything runs.
 */
export function documentShapeRule(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context) => {
    let aliases = 0;
    let operations = 0;
    return {
      Field(node) {
        if (node.alias) aliases += 1;
      },
      OperationDefinition() {
        operations += 1;
      },
      Document: {
        leave(document) {
          if (aliases > limits.maxAliases) {
            context.reportError(
              new GraphQLError(`The document has ${aliases} aliased fields; the limit is ${limits.maxAliases}`, {
                nodes: [document],
                extensions: { limit: 'aliases', aliases, maxAliases: limits.maxAliases },
              }),
            );
          }
          if (operations > limits.maxOperations) {
            context.reportError(
              new GraphQLError(`The document defines ${operations} operations; the limit is ${limits.maxOperations}`, {
                nodes: [document],
                extensions: { limit: 'operations', operations, maxOperations: limits.maxOperations },
              }),
            );
          }
        },
      },
    };
  };
}

/** The estimated cost of one operation of a document, with its variables. */
export function costOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> = {}): number {
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  return measure(schema, operation, (name) => fragments.get(name), variables).cost;
}

/** The cost queryCostPlugin measured, per request (the rate-limit plugin weighs requests by it). */
export const requestCosts = new WeakMap<object, number>();

/**
 * Cost (fields times the page sizes and relation lists above them) depends on the page sizes, which dashboards pass
 * as variables: it is checked once the operation and its variables are known, still before anything runs, and
 * answered like a validation failure (400, `extensions.limit` `cost`). One request cannot ask for unbounded work.
 */
export function queryCostPlugin(limits: QueryLimits = DEFAULT_LIMITS): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const cost = costOf(schema, document, operation, request.variables ?? {});
          requestCosts.set(request, cost);
          if (cost > limits.maxCost) {
            throw new GraphQLError(`The operation's estimated cost is ${cost}; the limit is ${limits.maxCost}. Ask for smaller pages or fewer nested lists`, {
              nodes: [operation],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'cost', cost, maxCost: limits.maxCost, http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
