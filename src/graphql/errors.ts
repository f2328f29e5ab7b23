import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { ERRORS } from '../shared/errors.js';
import { errorAnswer } from '../shared/error-answer.js';

/**
 * GraphQL clients get the error body of every other door (src/shared/error-answer.ts) in `extensions`, its code in
 * the table's GraphQL spelling. GraphQL's own errors (syntax, validation, variables, limits) pass as Apollo made them.
 */
export function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const thrown = unwrapResolverError(error);
    if (thrown instanceof GraphQLError || formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR') return formatted;
    const { error: body } = errorAnswer(thrown, {
      onFault: (err) => logger.error({ err, path: formatted.path }, 'unhandled GraphQL resolver error'),
    }).body;
    return {
      ...formatted,
      message: body.message,
      extensions: { code: ERRORS[body.code].graphql, status: body.status, ...(body.details ? { details: body.details } : {}) },
    };
  };
}
