import type { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, type ErrorCode } from '../src/shared/errors.js';
import { characterErrorFromDatabase } from '../src/shared/text.js';

const CODE_BY_EXTENSION: Record<string, ErrorCode> = {
  UNAUTHENTICATED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  BAD_USER_INPUT: 'validation_failed',
  CONFLICT: 'conflict',
  RATE_LIMITED: 'rate_limited',
};

/** The REST error for a GraphQL error: domain errors keep status, code, message and details; nothing raw leaks. */
export function toAppError(error: GraphQLError, logger: Logger, requestId: string): AppError {
  const original = error.originalError;
  if (original instanceof AppError) return original;
  const refusedText = characterErrorFromDatabase(original);
  if (refusedText) return refusedText;
  const code = CODE_BY_EXTENSION[String(error.extensions?.code ?? '')];
  if (code && !original) return new AppError(code, error.message);
  // The adapter validates everything it sends; anything else is a bug or a failure, logged and masked.
  logger.error({ err: original ?? error, requestId, path: error.path }, 'REST: unexpected GraphQL error');
  return new AppError('internal', 'Internal server error');
}

/** The error that answers a request when several are raised: a root error first, then the most telling one. */
export function pickError(errors: readonly GraphQLError[]): GraphQLError {
  const rank = (e: GraphQLError) => (e.originalError instanceof AppError ? 0 : 1) + (e.path && e.path.length > 1 ? 2 : 0);
  return [...errors].sort((a, b) => rank(a) - rank(b))[0];
}

export const isForbidden = (error: GraphQLError) =>
  (error.originalError instanceof AppError && error.originalError.code === 'forbidden') || error.extensions?.code === 'FORBIDDEN';
