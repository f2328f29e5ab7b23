import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { newId } from '../shared/id.js';
import { loggedPath } from './logger.js';

// A caller's own request id is kept (so traces join up across services) when it is short and plain.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'koa' {
  interface DefaultState {
    requestId: string;
  }
}

/** Outermost middleware: a request id on every response, and one access-log line per request. */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : newId('request');
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = ctx.status >= 500 ? 'error' : 'info';
      logger[level](
        { requestId, method: ctx.method, path: loggedPath(ctx.path), status: ctx.status, durationMs: Math.round(durationMs * 10) / 10, address: ctx.ip },
        'request',
      );
    }
  };
}
