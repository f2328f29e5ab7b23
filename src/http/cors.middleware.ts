import type { Middleware } from 'koa';

/**
 * Browser dashboards on other origins call the APIs. Authentication is a bearer token in a header, never a cookie,
 * so any origin may call (no credentials are ever allowed, so a page cannot borrow a user's session). The OAuth
 * sign-in pages (cookies) and the server-to-server order webhook are not covered.
 */
const API_PATHS = /^\/(graphql|v1\/|v2\/|openapi\.json$|oauth\/(token|revoke|introspect|me|certs)$|\.well-known\/)/;

const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id, Apollo-Require-Preflight';
const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, Deprecation, Sunset, Link, WWW-Authenticate';
const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';

export function cors(): Middleware {
  return async (ctx, next) => {
    if (!API_PATHS.test(ctx.path) || !ctx.get('origin')) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
