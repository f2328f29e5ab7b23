import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { AppError, ERRORS } from '../shared/errors.js';
import { errorAnswer, toAppError } from '../shared/error-answer.js';

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

/** An AppError's status and headers (Retry-After...) for the HTTP answer, as Apollo reads them from an error. */
export function httpOf(err: AppError): { status: number; headers: HeaderMap } {
  return { status: err.status, headers: new HeaderMap(Object.entries(err.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])) };
}

/** The first error that means "not now": no database connection in time, for one. */
const unavailableAmong = (errors: readonly unknown[] | undefined) =>
  errors?.map((err) => toAppError(err)).find((err): err is AppError => err?.code === 'unavailable');

/**
 * An operation the service could not serve for now is HTTP 503 with its Retry-After, as at every other door (the
 * errors in the body as usual): a client retries it later rather than taking it for a fault.
 */
export const unavailableStatusPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ errors, response }) {
        const unavailable = unavailableAmong(errors);
        if (!unavailable) return;
        const { status, headers } = httpOf(unavailable);
        response.http.status = status;
        for (const [name, value] of headers) response.http.headers.set(name, value);
      },
    };
  },
};

/**
 * A request's context could not be made (its token is checked in the database): what a client may be told (a 503
 * with Retry-After) is answered as any error is, with its HTTP status; a fault is left to Apollo (a 500).
 */
export function contextFailure(thrown: unknown): never {
  const known = toAppError(thrown);
  if (!known) throw thrown;
  throw new GraphQLError(known.message, { originalError: known, extensions: { code: ERRORS[known.code].graphql, status: known.status, http: httpOf(known) } });
}
