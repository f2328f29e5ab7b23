import type http from 'node:http';
import { ApolloServer, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { FormattedExecutionResult, GraphQLSchema } from 'graphql';
import type { GatewayExecutionResult, GatewayInterface } from '@apollo/server-gateway-interface';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../kit/context.js';
import { formatError } from './errors.js';
import { DEFAULT_LIMITS, documentShapeRule, queryCostPlugin, queryDepthRule } from './limits.js';
import { rateLimitPlugin } from './rate-limit.plugin.js';
import type { ApiLimit } from '../http/rate-limit/rate-limits.js';
import { storableTextPlugin } from './storable-text.plugin.js';
import { executorFor, releaseAnswer } from './executor.js';

/**
 * Apollo Server 5 has no `executor` option; its documented seam for one is the gateway interface: `load()` answers
 * the executor, `onSchemaLoadOrUpdate` hands Apollo the schema (at once, so start() finds it). Everything else
 * (parsing, validation rules, plugins, formatError, HTTP) stays Apollo's; only execution is ours (./executor.ts).
 */
function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const executor = executorFor(schema);
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return {
        executor: async (request) =>
          executor.execute({
            document: request.document,
            source: request.source,
            operationName: request.request.operationName,
            variableValues: request.request.variables,
            contextValue: request.context,
          }) as Promise<GatewayExecutionResult>,
      };
    },
    async stop() {},
  };
}

/**
 * The gateway seam costs one thing: Apollo wraps each request for it in an object with a `status` getter and setter
 * that close over the request (makeGatewayGraphQLRequestContext). An object literal with accessors gets a hidden class
 * of its own, and V8 keeps hidden classes in the old generation until a full collection, so every answered request
 * stayed reachable from there: each young collection copied and promoted whatever requests it met (about 300 KB of a
 * 50-survey page), and under load full collections came every second. So a request lets go of what it holds once
 * its answer is made: its loaders and identity map when the response is ready (here), its data once written as JSON
 * (releaseAnswer, in stringifyResult below).
 */
const RELEASE_ON_ANSWER: GraphQLRequestListener<GraphQLContext> = {
  async willSendResponse({ contextValue }) {
    // Best effort, never a failed answer: a context made without them (a test's own) has nothing to let go of.
    contextValue.loaders?.clear();
    contextValue.em?.clear();
  },
};

function stringifyAndRelease(result: FormattedExecutionResult): string {
  const json = JSON.stringify(result);
  releaseAnswer(result.data);
  return json;
}

/** Apollo Sandbox and introspection stay on in every environment: exploring the schema is part of the product. */
export async function createApolloServer(schema: GraphQLSchema, httpServer: http.Server, logger: Logger, limit?: ApiLimit) {
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: compiledExecution(schema),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatError(logger),
    validationRules: [queryDepthRule(), documentShapeRule()],
    parseOptions: { maxTokens: DEFAULT_LIMITS.maxTokens },
    // Apollo's default appends a newline: a second string joined to the answer, which Koa then copies whole into a
    // flat one to count its bytes (a large answer's 0.5 ms). JSON needs no newline.
    stringifyResult: stringifyAndRelease,
    plugins: [
      { requestDidStart: async () => RELEASE_ON_ANSWER },
      queryCostPlugin(),
      rateLimitPlugin(limit),
      storableTextPlugin(),
      // No cache hints are used; the plugin would otherwise wrap every field resolution (about a tenth of a large page's CPU).
      ApolloServerPluginCacheControlDisabled(),
      // On stop: close the listener, let in-flight requests finish (up to 10 s), then close what is left.
      ApolloServerPluginDrainHttpServer({ httpServer }),
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
  await apollo.start();
  return apollo;
}
