import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';
import { OAuthError } from '../modules/oauth/oauth.errors.js';
import { KeyStore, ensureActiveSigningKey } from '../modules/oauth/signing-key.service.js';
import { TokenService } from '../modules/oauth/token.service.js';
import { tokenRoutes } from './token.routes.js';
import { metadataRoutes } from './metadata.routes.js';
import { revocationRoutes } from './revocation.routes.js';
import { authorizeRoutes } from './authorize.routes.js';
import { accountRoutes } from './account.routes.js';
import { schedulePurge } from '../modules/oauth/purge.service.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';

/** Paths answered with RFC 6749 error bodies ({"error", "error_description"}) rather than the API's {"error": {status, code, ...}} body. */
const RFC_ERROR_PATHS = /^\/oauth\/(token|revoke|introspect|me)$/;

/**
 * OAuth endpoints' failures in RFC 6749 shape, including the body parser's (oversized, malformed, wrong type).
 * Anything else (unknown path, server fault) goes on to the service's error handler.
 */
const oauthErrors: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (thrown) {
    const err = thrown as Error & { status?: number };
    if (!(err instanceof OAuthError) && !(RFC_ERROR_PATHS.test(ctx.path) && [400, 413, 415].includes(err.status ?? 0))) throw err;
    const oauthError =
      err instanceof OAuthError
        ? err
        : new OAuthError('invalid_request', err instanceof AppError ? err.message : err.status === 413 ? 'The request body is larger than 1 MiB' : 'Malformed request body');
    ctx.status = err instanceof OAuthError ? err.status : err.status!;
    for (const [name, value] of Object.entries(oauthError.headers)) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = oauthError.body();
  }
};

export interface OAuth {
  keys: KeyStore;
  tokens: TokenService;
  router: Router;
  errors: Middleware;
  /** Stops background work (the hourly purge of expired rows); call before closing the ORM. */
  stop(): void;
}

export async function createOAuth(deps: { orm: MikroORM; config: Config; logger: Logger; failures?: FailureLimit }): Promise<OAuth> {
  await ensureActiveSigningKey(deps.orm.em);
  const keys = new KeyStore(deps.orm.em);
  const tokens = new TokenService(deps.orm.em, keys, deps.config.publicUrl);
  const router = new Router();
  const ctx = { orm: deps.orm, config: deps.config, logger: deps.logger, keys, tokens, failures: deps.failures };
  tokenRoutes(router, ctx);
  metadataRoutes(router, ctx);
  revocationRoutes(router, ctx);
  authorizeRoutes(router, ctx);
  accountRoutes(router, ctx);
  const stopPurge = schedulePurge(deps.orm.em, deps.logger);
  return { keys, tokens, router, errors: oauthErrors, stop: stopPurge };
}

