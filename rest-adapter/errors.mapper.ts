import type { GraphQLError } from 'graphql';
import { AppError } from '../src/shared/errors.js';
import { toAppError } from '../src/shared/error-answer.js';

/** The error that answers a request when several are raised: a root error first, then the most telling one. */
export function pickError(errors: readonly GraphQLError[]): GraphQLError {
  const rank = (e: GraphQLError) => (e.originalError instanceof AppError ? 0 : 1) + (e.path && e.path.length > 1 ? 2 : 0);
  return [...errors].sort((a, b) => rank(a) - rank(b))[0];
}

export const isForbidden = (error: GraphQLError) => toAppError(error)?.code === 'forbidden';
