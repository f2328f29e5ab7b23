import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export interface QueryLimits {
  /** Nested field levels, root fields being level 1. */
  maxDepth: number;
  /** Estimated fields resolved: each field once per parent item. */
  maxCost: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 8, maxCost: 100_000 };

/** A relation list (Survey.steps, Order.items...) has no page size: it is assumed to hold this many items. */
const RELATION_LIST_SIZE = 10;
/** A page size given by a variable is unknown at validation time: assume the largest allowed. */
const WORST_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;

interface Walk {
  context: ValidationContext;
  fragments: Set<string>;
  depth: number;
  cost: number;
}

function pageSizeOf(args: readonly { name: { value: string }; value: { kind: string; value?: string } }[] | undefined): number | undefined {
  const arg = args?.find((a) => a.name.value === 'pageSize');
  if (!arg) return undefined;
  return arg.value.kind === Kind.INT ? Number(arg.value.value) : WORST_PAGE_SIZE;
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
      w.cost += multiplier;
      const ownPageSize = field.args.some((a) => a.name === 'pageSize') ? (pageSizeOf(selection.arguments as never) ?? DEFAULT_PAGE_SIZE) : undefined;
      const isList = isListType(getNullableType(field.type));
      const childMultiplier = multiplier * (isList ? (pageSize ?? RELATION_LIST_SIZE) : 1);
      const named = getNamedType(field.type);
      if (selection.selectionSet && isCompositeType(named)) {
        walk(w, selection.selectionSet, named, depth + 1, childMultiplier, isList ? undefined : (ownPageSize ?? undefined));
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const cond = selection.typeCondition ? w.context.getSchema().getType(selection.typeCondition.name.value) : type;
      if (cond && isCompositeType(cond)) walk(w, selection.selectionSet, cond, depth, multiplier, pageSize);
    } else {
      const name = selection.name.value;
      if (w.fragments.has(name)) continue; // cycles are reported by NoFragmentCyclesRule
      const fragment: FragmentDefinitionNode | null | undefined = w.context.getFragment(name);
      if (!fragment) continue;
      const cond = w.context.getSchema().getType(fragment.typeCondition.name.value);
      w.fragments.add(name);
      if (cond && isCompositeType(cond)) walk(w, fragment.selectionSet, cond, depth, multiplier, pageSize);
      w.fragments.delete(name);
    }
  }
}

/**
 * Apollo answers these as 400 GRAPHQL_VALIDATION_FAILED; `extensions.limit` says which limit (`depth` or `cost`).
 * Refuses, before anything runs, an operation nested deeper than `maxDepth` or whose estimated work (fields times
 * the page sizes and relation lists above them) exceeds `maxCost`: one request cannot ask for unbounded work.
 */
export function queryLimitsRule(limits: QueryLimits = DEFAULT_LIMITS): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const root = operation.operation === 'mutation' ? context.getSchema().getMutationType() : operation.operation === 'subscription' ? context.getSchema().getSubscriptionType() : context.getSchema().getQueryType();
      if (!root) return;
      const w: Walk = { context, fragments: new Set(), depth: 0, cost: 0 };
      walk(w, operation.selectionSet, root, 1, 1);
      if (w.depth > limits.maxDepth) {
        context.reportError(
          new GraphQLError(`The operation is nested ${w.depth} levels deep; the limit is ${limits.maxDepth}`, {
            nodes: [operation],
            extensions: { limit: 'depth', depth: w.depth, maxDepth: limits.maxDepth },
          }),
        );
      }
      if (w.cost > limits.maxCost) {
        context.reportError(
          new GraphQLError(`The operation's estimated cost is ${w.cost}; the limit is ${limits.maxCost}. Ask for smaller pages or fewer nested lists`, {
            nodes: [operation],
            extensions: { limit: 'cost', cost: w.cost, maxCost: limits.maxCost },
          }),
        );
      }
    },
  });
}
