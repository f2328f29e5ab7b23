import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';
import { characterErrorFromDatabase } from '../shared/text.js';

/** GraphQL clients get the same error codes as REST, upper-cased in `extensions.code` as Apollo's own are. */
export const GRAPHQL_CODE: Record<string, string> = {
  bad_request: 'BAD_USER_INPUT',
  validation_failed: 'BAD_USER_INPUT',
  unauthorized: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  rate_limited: 'RATE_LIMITED',
  payload_too_large: 'BAD_USER_INPUT',
};

/**
 * Domain errors keep their message, code and details; GraphQL's own errors (syntax, validation) pass as they are;
 * anything else is logged and masked so no stack or SQL reaches a client.
 */
export function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const unwrapped = unwrapResolverError(error);
    const original = characterErrorFromDatabase(unwrapped) ?? unwrapped;
    if (original instanceof AppError) {
      return {
        ...formatted,
        message: original.message,
        extensions: {
          code: GRAPHQL_CODE[original.code] ?? 'INTERNAL_SERVER_ERROR',
          status: original.status,
          ...(original.details?.length ? { details: original.details } : {}),
        },
      };
    }
    if (original instanceof GraphQLError || formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR') {
      return formatted;
    }
    logger.error({ err: original, path: formatted.path }, 'unhandled GraphQL resolver error');
    return {
      message: 'Internal server error',
      path: formatted.path,
      locations: formatted.locations,
      extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 },
    };
  };
}
