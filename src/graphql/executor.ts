import {
  buildASTSchema,
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  isEnumType,
  Kind,
  parse,
  printSchema,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

export interface ExecuteArgs {
  document: DocumentNode;
  /** The document's text: with the operation name, the cache key. Absent: the document is run by graphql-js. */
  source?: string;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue: unknown;
}

/**
 * A compiled query; null for an operation the compiler is not given (it runs on graphql-js, which is always right);
 * SEEN_ONCE for a document met once so far: compiling costs more than running once, so a document is compiled the
 * second time it comes (a dashboard's or the REST adapter's at once; a stream of one-off documents never).
 */
const SEEN_ONCE = 1;
type Entry = CompiledQuery | null | typeof SEEN_ONCE;

/**
 * Runs GraphQL operations, compiling each query document once (graphql-jit turns a document into one JavaScript
 * function: no per-field lookups, argument objects or promise bookkeeping for synchronous fields) and keeping the
 * compiled function in a bounded LRU keyed by the document's text and operation name. Dashboards and the REST
 * adapter send a few documents again and again, so nearly every request finds its function.
 *
 * A document's first request runs on graphql-js (see SEEN_ONCE). What graphql-jit does not do, or does differently,
 * stays on graphql-js, so the answer (data, errors, their codes, messages, paths and locations) is the one graphql-js
 * gives:
 * - mutations (one object each, fields strictly in order) and subscriptions; introspection (Apollo Sandbox);
 * - a document the compiler refuses;
 * - variables that do not coerce: graphql-js words those errors and Apollo answers them 400 BAD_USER_INPUT.
 * Resolver errors from compiled code are rebuilt as graphql-js builds them (`locatedError`): same message, path,
 * locations and `originalError`, so the error formatter finds the AppError (FORBIDDEN stays FORBIDDEN).
 */
export class CompiledExecutor {
  private readonly cache = new Map<string, Entry>();
  /** For tests and benches: how requests were run. */
  readonly counts = { compiled: 0, graphqlJs: 0 };
  /** See leavesAsResolved. */
  private readonly leavesAsResolved: boolean;
  /** The schema without resolvers, to check compiled answers' leaves in tests (see checkLeaves); made on first use. */
  private plainSchema?: GraphQLSchema;

  constructor(
    readonly schema: GraphQLSchema,
    private readonly maxEntries = 500,
    private readonly checkLeavesInTests = process.env.NODE_ENV === 'test',
  ) {
    this.leavesAsResolved = leavesAsResolved(schema);
  }

  get size() {
    return this.cache.size;
  }

  execute(args: ExecuteArgs): Promise<ExecutionResult> | ExecutionResult {
    const result = this.executeCompiled(args);
    if (result) return result;
    this.counts.graphqlJs++;
    return execute({
      schema: this.schema,
      document: args.document,
      contextValue: args.contextValue,
      variableValues: args.variableValues,
      operationName: args.operationName,
    });
  }

  /** The compiled function's answer, or undefined when this request is one graphql-js runs (see the class). */
  executeCompiled(args: ExecuteArgs): Promise<ExecutionResult> | ExecutionResult | undefined {
    const compiled = this.compiled(args);
    if (!compiled || !this.variablesCoerce(args)) return undefined;
    this.counts.compiled++;
    const result = compiled.query(undefined, args.contextValue, args.variableValues ?? {});
    if (this.checkLeavesInTests) return Promise.resolve(result).then((r) => asGraphQLJs(this.checkLeaves(args, r)));
    return isPromise(result) ? result.then(asGraphQLJs) : asGraphQLJs(result);
  }

  private compiled({ document, source, operationName }: ExecuteArgs): CompiledQuery | null {
    if (source === undefined) return null;
    const key = `${operationName ?? ''}\n${source}`;
    let entry = this.cache.get(key);
    if (entry === undefined) entry = SEEN_ONCE;
    else {
      if (entry === SEEN_ONCE) entry = this.compile(document, operationName);
      // Least recently used goes first: a hit moves to the end of the Map's order.
      this.cache.delete(key);
    }
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, entry);
    return entry === SEEN_ONCE ? null : entry;
  }

  private compile(document: DocumentNode, operationName?: string | null): CompiledQuery | null {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== 'query') return null;
    const introspects = operation.selectionSet.selections.some((s) => s.kind !== Kind.FIELD || s.name.value.startsWith('__'));
    if (introspects) return null;
    try {
      const compiled = compileQuery(this.schema, document, operationName ?? undefined, {
        disablingCapturingStackErrors: true,
        disableLeafSerialization: this.leavesAsResolved,
      });
      return isCompiledQuery(compiled) ? compiled : null;
    } catch {
      return null;
    }
  }

  /**
   * In tests, every compiled answer without errors is run again by graphql-js over a schema without resolvers, its
   * data as the root: each built-in scalar and enum then goes through its own serialize, and the answer must come out
   * the same. A resolver that gives a value serialize would change (a number for an ID, a numeric string for a
   * Float) fails the test that asked for it, where production would pass the value on as it is (leavesAsResolved).
   */
  private checkLeaves({ document, operationName, variableValues }: ExecuteArgs, result: ExecutionResult): ExecutionResult {
    if (!this.leavesAsResolved || result.errors?.length || !result.data) return result;
    this.plainSchema ??= buildASTSchema(parse(printSchema(this.schema)));
    const again = execute({
      schema: this.plainSchema,
      document,
      operationName,
      variableValues,
      rootValue: result.data,
      fieldResolver: (source, _args, _context, info) => (source as Record<string, unknown>)[info.path.key as string],
    }) as ExecutionResult;
    const [served, serialized] = [JSON.stringify(result.data), JSON.stringify(again.data)];
    if (again.errors?.length || served !== serialized) {
      throw new Error(
        `a compiled answer holds a leaf its scalar would serialize otherwise: ${again.errors?.[0]?.message ?? ''}\n${served.slice(0, 500)}\n${serialized.slice(0, 500)}`,
      );
    }
    return result;
  }

  /** Cheap next to the page it guards (a few variables), and it keeps graphql-js's wording of variable errors. */
  private variablesCoerce({ document, operationName, variableValues }: ExecuteArgs): boolean {
    const operation = getOperationAST(document, operationName);
    const definitions = operation?.variableDefinitions ?? [];
    if (!definitions.length) return true;
    return !getVariableValues(this.schema, definitions, variableValues ?? {}, { maxErrors: 1 }).errors;
  }
}

/**
 * Whether compiled queries pass built-in scalars (ID, String, Int, Float, Boolean) and enums on as their resolvers
 * give them rather than through each type's serialize (graphql-jit's disableLeafSerialization; nulls are still
 * checked). graphql-jit's serializer call builds a locations array, a path array and a rest array for every leaf, used
 * only if serialize fails, and a large page has thousands of leaves. The service's resolvers
 * give serialized values already (strings for IDs, numbers for Int and Float), which tests check on every compiled
 * answer (checkLeaves); an enum whose values differ from their names would need its serialize, so a schema with one
 * keeps serialization.
 */
export function leavesAsResolved(schema: GraphQLSchema): boolean {
  return Object.values(schema.getTypeMap()).every((type) => !isEnumType(type) || type.getValues().every((value) => value.value === value.name));
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as Promise<T>)?.then === 'function';

/**
 * graphql-jit's errors carry graphql-js's message, path and locations but are its own objects; graphql-js hands the
 * formatter a GraphQLError whose `originalError` is what the resolver threw, or that error itself when it was already
 * a located GraphQLError. Rebuilt the same way here.
 */
function asGraphQLJs(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) => {
    const original = e.originalError ?? undefined;
    if (original instanceof GraphQLError && original.path) return original;
    const error = new GraphQLError(e.message, { path: e.path, originalError: original, extensions: original ? undefined : e.extensions });
    (error as { locations?: unknown }).locations = e.locations;
    return error;
  });
  return { ...result, errors };
}

/**
 * Lets go of an answer's data once it is written as JSON (every door writes it at once): its top-level fields become
 * null. A request outlives young collections while it waits on PostgreSQL, so the answer's root, made when execution
 * starts, is often promoted to the old generation before the rows arrive; whatever it still points to is then copied
 * by every young collection until the next full one. Cut loose, the page's objects die young.
 */
export function releaseAnswer(data: Record<string, unknown> | null | undefined): void {
  if (data) for (const key of Object.keys(data)) data[key] = null;
}

const executors = new WeakMap<GraphQLSchema, CompiledExecutor>();

/** One executor (one compile cache) per schema, shared by /graphql and the REST adapter. */
export function executorFor(schema: GraphQLSchema): CompiledExecutor {
  let executor = executors.get(schema);
  if (!executor) executors.set(schema, (executor = new CompiledExecutor(schema)));
  return executor;
}
