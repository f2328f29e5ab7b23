import { GraphQLError } from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import { ERRORS } from '../shared/errors.js';
import { inspectJson, TOO_DEEP_MESSAGE, UNSTORABLE_MESSAGE } from '../shared/text.js';

/**
 * Variables of a GET request come JSON-decoded from the query string, past the body check: text PostgreSQL cannot
 * store (a NUL breaks its protocol) is refused here as a 400 before anything runs.
 */
export function storableTextPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request }) {
          // A POST body was checked whole by the body middleware; scanning its variables again would be wasted work.
          if (request.http?.method !== 'GET') return;
          const problem = inspectJson(request.variables ?? {});
          if (problem) {
            const { graphql: code, status } = ERRORS.bad_request;
            const message = problem.kind === 'too_deep' ? TOO_DEEP_MESSAGE : UNSTORABLE_MESSAGE;
            throw new GraphQLError(`Variable ${problem.path} ${message}`, { extensions: { code, status, http: { status } } });
          }
        },
      };
    },
  };
}
