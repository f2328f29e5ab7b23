import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';
import { errorAnswer } from '../shared/error-answer.js';
import { loggedPath } from './logger.js';

/**
 * The one place that turns an HTTP request's failures into the error body of docs/architecture.md, "Errors"
 * (src/shared/error-answer.ts says how). Client mistakes keep their 4xx; anything else is a 500 whose body says only
 * "internal" (the stack and any SQL go to the log, with the request id to find them).
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // Nothing answered: an unknown path, or a known path with another method. Every 405 arrives here the same way,
      // from Koa's routers (allowedMethods) and the REST adapter alike: the status and the Allow header, no body.
      if (ctx.body == null && ctx.status === 404) throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}`);
      if (ctx.body == null && ctx.status === 405) {
        const allow = ctx.response.get('Allow');
        throw new AppError(
          'method_not_allowed',
          `${ctx.method} is not allowed on ${ctx.path}${allow ? `; allowed: ${allow}` : ''}`,
          undefined,
          allow ? { Allow: allow } : undefined,
        );
      }
    } catch (thrown) {
      const answer = errorAnswer(thrown, {
        requestId: ctx.state.requestId,
        onFault: (err) => logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: loggedPath(ctx.path) }, 'unhandled error'),
      });
      ctx.status = answer.status;
      for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
      ctx.body = answer.body;
    }
  };
}
