import type { Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../shared/errors.js';
import { inspectJson, jsonProblemError } from '../shared/text.js';

const BODY_LIMIT = '1mb'; // 1 MiB: the bytes library counts in powers of 1024
/** The same limit in bytes, for a WebSocket message. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Request bodies are JSON. Form bodies are accepted only on the paths given (OAuth endpoints speak RFC 6749 forms).
 * Anything else with a body is a 415 before any handler runs; over 1 MiB is a 413 without reading the rest.
 */
export function bodyMiddleware(options: { formPaths?: RegExp[] } = {}): Middleware {
  const parser = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: BODY_LIMIT,
    formLimit: BODY_LIMIT,
    // Objects and arrays only: a bare `"string"` body is malformed for every route here.
    jsonStrict: true,
  });
  return async (ctx, next) => {
    if (!WRITE_METHODS.has(ctx.method) || !hasBody(ctx.req.headers)) return next();
    const formAllowed = options.formPaths?.some((p) => p.test(ctx.path)) ?? false;
    if (!ctx.is('application/json', '+json') && !(formAllowed && ctx.is('urlencoded'))) {
      throw new AppError(
        'unsupported_media_type',
        `Content-Type must be application/json${formAllowed ? ' or application/x-www-form-urlencoded' : ''}; got "${ctx.get('content-type') || 'none'}"`,
      );
    }
    return parser(ctx, async () => {
      // Checked once here for every JSON door (GraphQL variables, REST, the webhook, OAuth), in one iterative walk:
      // nesting beyond 64 levels (anything recursive further on would overflow the stack) and text PostgreSQL cannot
      // store (it would otherwise fail deep in the database as a server error) are the client's 400.
      const problem = inspectJson((ctx.request as { body?: unknown }).body);
      if (problem) throw jsonProblemError(problem);
      return next();
    });
  };
}
