import { GraphQLError } from 'graphql';
import { AppError, CODE_BY_GRAPHQL, CODE_BY_STATUS, ERRORS, type ErrorBody } from './errors.js';
import { characterErrorFromDatabase } from './text.js';
import { unavailableFromDatabase } from './database-unavailable.js';

/** A resolver's failure reaches us wrapped (located) in GraphQLErrors; the value thrown is what speaks. */
function unwrap(thrown: unknown): unknown {
  let err = thrown;
  while (err instanceof GraphQLError && err.originalError) err = err.originalError;
  return err;
}

/** Errors of Koa's own parts (body parser, raw-body, routers), which speak in http-errors' `status`. */
function fromHttpError(err: unknown): AppError | undefined {
  const { status, type, message } = (err ?? {}) as { status?: unknown; type?: string; message?: string };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  switch (status) {
    case 413:
      return new AppError('payload_too_large', 'The request body is larger than the 1 MiB limit');
    case 415:
      return new AppError('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json)');
    case 400:
      // co-body gives JSON.parse's own SyntaxError a 400 and throws it; raw-body's errors carry a `type`.
      if (err instanceof SyntaxError || type === 'entity.parse.failed') return new AppError('bad_request', 'The request body is not valid JSON');
      return new AppError('bad_request', message || 'Bad request');
    default:
      return new AppError(CODE_BY_STATUS.get(status) ?? 'bad_request', message || 'Request refused');
  }
}

/**
 * What a client is told about anything thrown: domain errors as they are, text the database refused as the client's
 * 400, no database connection in time as a 503 with Retry-After, GraphQL errors by their `extensions.code`, Koa's http
 * errors by their status. Undefined for a fault.
 */
export function toAppError(thrown: unknown): AppError | undefined {
  const err = unwrap(thrown);
  if (err instanceof AppError) return err;
  const refusedText = characterErrorFromDatabase(err);
  if (refusedText) return refusedText;
  const unavailable = unavailableFromDatabase(err);
  if (unavailable) return unavailable;
  if (err instanceof GraphQLError) {
    const code = CODE_BY_GRAPHQL.get(String(err.extensions?.code ?? ''));
    return code && ERRORS[code].status < 500 ? new AppError(code, err.message) : undefined;
  }
  return fromHttpError(err);
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/**
 * The one rendering of a failure, for every door (the Koa handler, Apollo's formatError, the REST adapter): the error
 * body of docs/architecture.md, "Errors". A fault goes to `onFault` (with the value actually thrown) and is answered
 * `internal`, without its text, stack or SQL.
 */
export function errorAnswer(thrown: unknown, options: { requestId?: string; onFault: (err: unknown) => void }): ErrorAnswer {
  let appError = toAppError(thrown);
  if (!appError) {
    options.onFault(unwrap(thrown));
    appError = new AppError('internal', 'Internal server error');
  }
  return {
    status: appError.status,
    // RFC 9110 15.5.2: a 401 names its scheme. Bearer, for the API's access tokens and the webhook's secret; a door
    // with another scheme (the OAuth endpoints' client Basic) or an RFC 6750 error code gives its own.
    headers: { ...(appError.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}), ...(appError.headers ?? {}) },
    body: {
      error: {
        status: appError.status,
        code: appError.code,
        message: appError.message,
        ...(appError.details?.length ? { details: appError.details } : {}),
        requestId: options.requestId,
      },
    },
  };
}
