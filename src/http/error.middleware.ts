import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, errorBody, type ErrorCode } from '../shared/errors.js';
import { characterErrorFromDatabase } from '../shared/text.js';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Messages for errors raised by Koa's own parts (body parser, router), which speak in http-errors. */
function fromHttpError(err: { status?: number; type?: string; message?: string }, ctx: Context): AppError | undefined {
  const status = err.status;
  if (!status || status < 400 || status >= 500) return undefined;
  switch (status) {
    case 413:
      return new AppError('payload_too_large', 'The request body is larger than the 1 MiB limit');
    case 415:
      return new AppError('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json)');
    case 400:
      if (err.type === 'entity.parse.failed' || /JSON/i.test(err.message ?? '')) {
        return new AppError('bad_request', 'The request body is not valid JSON');
      }
      return new AppError('bad_request', err.message || 'Bad request');
    case 405:
      return new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
    default:
      return new AppError(CODE_BY_STATUS[status] ?? 'bad_request', err.message || 'Request refused');
  }
}

/**
 * The one place that turns failures into DESIGN.md's error body. Client mistakes keep their 4xx; anything else is a
 * 500 whose body says only "internal" (the stack and any SQL go to the log, with the request id to find them).
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // Nothing answered: an unknown path, or a known path with another method (the router set 405 and Allow).
      if (ctx.body == null && (ctx.status === 404 || ctx.status === 405)) {
        throw ctx.status === 405
          ? new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`)
          : new AppError('not_found', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (thrown) {
      const err = thrown as Error & { status?: number; expose?: boolean; headers?: Record<string, string> };
      const appError = err instanceof AppError ? err : (fromHttpError(err, ctx) ?? characterErrorFromDatabase(err));
      if (appError) {
        ctx.status = appError.status;
        for (const [name, value] of Object.entries(appError.headers ?? {})) ctx.set(name, value);
      } else {
        logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
        ctx.status = 500;
      }
      ctx.body = errorBody(appError ?? new AppError('internal', 'Internal server error'), ctx.state.requestId);
    }
  };
}
