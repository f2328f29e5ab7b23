import type http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../kit/context.js';
import { formatError } from './errors.js';
import { queryCostPlugin, queryDepthRule } from './limits.js';
import { storableTextPlugin } from './storable-text.plugin.js';

/** Apollo Sandbox and introspection stay on in every environment: exploring the schema is part of the product. */
export async function createApolloServer(schema: GraphQLSchema, httpServer: http.Server, logger: Logger) {
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatError(logger),
    validationRules: [queryDepthRule()],
    plugins: [
      queryCostPlugin(),
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
