import type http from 'node:http';
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { FormattedExecutionResult, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { noteWrite, routeReads, type GraphQLContext } from '../kit/graphql/context.js';
import { formatError, unavailableStatusPlugin } from './errors.js';
import { DEFAULT_LIMITS, documentShapeRule, queryCostPlugin, queryDepthRule } from './limits.js';
import { rateLimitPlugin } from './rate-limit.plugin.js';
import type { ApiLimit } from '../http/rate-limit/rate-limits.js';
import { storableTextPlugin } from './storable-text.plugin.js';
import { executorFor, releaseAnswer } from './executor.js';

/**
 * Compiled queries (./executor.ts) through Apollo's documented seam for answering an operation without its own
 * execution, `responseForOperation`: parsing, validation rules, the other plugins and HTTP stay Apollo's. A request
 * the executor leaves to graphql-js, and a compiled answer with errors, get Apollo's own execution instead, so every
 * error is worded and formatted by Apollo and graphql-js alone (a query that fails is run twice: it reads, never writes).
 */
function compiledQueries(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
  const executor = executorFor(schema);
  const listener: GraphQLRequestListener<GraphQLContext> = {
    async responseForOperation({ document, source, request, contextValue }) {
      const compiled = executor.executeCompiled({ document, source, operationName: request.operationName, variableValues: request.variables, contextValue });
      const result = compiled && (await compiled);
      if (!result || result.errors?.length) return null;
      return { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: { data: result.data } } };
    },
  };
  return { requestDidStart: async () => listener };
}

/**
 * Where the operation's reads go, once its type is known (src/kit/graphql/context.ts routeReads); after a mutation, its
 * client's next reads stay on the primary for the read-your-writes window.
 */
const READ_ROUTING: GraphQLRequestListener<GraphQLContext> = {
  async didResolveOperation({ operation, contextValue }) {
    if (operation) await routeReads(contextValue, operation.operation);
  },
  async willSendResponse({ operation, contextValue }) {
    if (operation?.operation === 'mutation') await noteWrite(contextValue);
  },
};

/**
 * A request lets go of its loaders and identity map once its answer is made: the answer is all that is left to write.
 */
const RELEASE_ON_ANSWER: GraphQLRequestListener<GraphQLContext> = {
  async willSendResponse({ contextValue }) {
    // Best effort, never a failed answer: a context made without them (a test's own) has nothing to let go of.
    contextValue.loaders?.clear();
    contextValue.em?.clear();
  },
};

/** Apollo Sandbox and introspection stay on in every environment: exploring the schema is part of the product. */
export async function createApolloServer(schema: GraphQLSchema, httpServer: http.Server, logger: Logger, limit?: ApiLimit) {
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatError(logger),
    validationRules: [queryDepthRule(), documentShapeRule()],
    parseOptions: { maxTokens: DEFAULT_LIMITS.maxTokens },
    // Apollo's default appends a newline, a second string joined to the answer before Koa writes it. JSON needs none.
    // Once written, the answer's data is let go of (releaseAnswer).
    stringifyResult: (result: FormattedExecutionResult) => {
      const json = JSON.stringify(result);
      releaseAnswer(result.data);
      return json;
    },
    plugins: [
      { requestDidStart: async () => RELEASE_ON_ANSWER },
      unavailableStatusPlugin,
      queryCostPlugin(),
      rateLimitPlugin(limit),
      storableTextPlugin(),
      // After the limits and checks that may refuse the request: a refused one costs no replica check.
      { requestDidStart: async () => READ_ROUTING },
      // Last among the request's plugins: the cost and rate limits have had their say before a query is answered.
      compiledQueries(schema),
      // No cache hints are used; the plugin would otherwise wrap every field resolution.
      ApolloServerPluginCacheControlDisabled(),
      // On stop: close the listener, let in-flight requests finish (up to 10 s), then close what is left.
      ApolloServerPluginDrainHttpServer({ httpServer }),
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
  await apollo.start();
  return apollo;
}
