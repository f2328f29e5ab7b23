import { GraphQLError } from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../kit/graphql/context.js';
import { AppError, ERRORS } from '../shared/errors.js';
import { graphqlOperations, operationLabel } from '../kit/metrics/metrics.js';
import { weightOf, type ApiLimit } from '../http/rate-limit/rate-limits.js';
import { requestCosts } from './limits.js';
import { httpOf } from './errors.js';

/**
 * The API quota on /graphql (shared with REST): charged once the operation and its cost are known, before anything
 * runs; an operation weighs max(1, ceil(cost / 100)) units. The answer carries the IETF fields and
 * `extensions.cost {requested, weight, remaining}`; a refusal is HTTP 429 with Retry-After and `RATE_LIMITED`.
 * Also counts operations by name for /metrics.
 */
export function rateLimitPlugin(limit: ApiLimit | undefined): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      let cost: { requested: number; weight: number; remaining: number } | undefined;
      return {
        async didResolveOperation({ request, operation, contextValue, response }) {
          if (!operation || !limit) return;
          const requested = requestCosts.get(request) ?? 0;
          try {
            const charge = await limit.charge(contextValue.auth, contextValue.clientAddress ?? 'unknown', requested);
            if (!charge) return;
            for (const [name, value] of Object.entries(charge.headers)) response.http.headers.set(name.toLowerCase(), value);
            cost = { requested, weight: weightOf(requested), remaining: charge.remaining };
          } catch (err) {
            if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err;
            const { graphql: code, status } = ERRORS.rate_limited;
            throw new GraphQLError(err.message, {
              extensions: {
                code,
                status,
                cost: { requested, weight: weightOf(requested), remaining: 0 },
                http: httpOf(err),
              },
            });
          }
        },
        async willSendResponse({ response, operation, request, errors }) {
          if (operation)
            graphqlOperations.inc({
              operation: operationLabel(request.operationName ?? operation.name?.value),
              type: operation.operation,
              outcome: errors?.length ? 'error' : 'ok',
            });
          if (cost && response.body.kind === 'single') {
            response.body.singleResult.extensions = { ...response.body.singleResult.extensions, cost };
          }
        },
      };
    },
  };
}
