import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Services } from '../kit/graphql/context.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';
import { toAppError } from '../shared/error-answer.js';
import { sendHtml } from '../http/html.js';
import { errorPage } from './authorize.pages.js';
import { OAuthError, KeyStore, ensureActiveSigningKey, TokenService, schedulePurge } from '../modules/oauth/index.js';
import { tokenRoutes } from './token.routes.js';
import { metadataRoutes } from './metadata.routes.js';
import { revocationRoutes } from './revocation.routes.js';
import { authorizeRoutes, secureHeaders } from './authorize.routes.js';
import { accountRoutes } from './account.routes.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';

/** Paths answered with RFC 6749 error bodies ({"error", "error_description"}) rather than the API's {"error": {status, code, ...}} body. */
const RFC_ERROR_PATHS = /^\/oauth\/(token|revoke|introspect|me)$/;

/** The pages a person reads in a browser (sign-in, consent, sign-up, password, invitation): a failure is a page too. */
const PAGE_PATHS = /^\/(signup|oauth\/(authorize|invitation|signup|verify|verify\/resend|password\/forgot|password\/reset))$/;

/**
 * A page's failure on the service's side: a busy database (no connection in time) is a 503 "try again in a moment"
 * with Retry-After, anything else a logged 500; as a page, never JSON.
 */
function failurePage(ctx: Context, thrown: unknown, logger: Logger) {
  const known = toAppError(thrown);
  const busy = known?.code === 'unavailable';
  if (busy) ctx.set(known.headers ?? {});
  else logger.error({ err: thrown, requestId: ctx.state.requestId, path: ctx.path }, 'sign-in or account page failed');
  secureHeaders(ctx);
  sendHtml(
    ctx,
    busy ? 503 : 500,
    errorPage(
      busy
        ? {
            title: 'Please try again in a moment',
            message: 'The service is busy right now. Go back and send the form again in a few seconds: nothing was lost.',
          }
        : { title: 'Something went wrong', message: 'The service could not finish this. Please try again; if it keeps failing, tell the people who run it.' },
    ),
  );
}

/**
 * OAuth endpoints' failures in RFC 6749 shape, including the body parser's (oversized, malformed, wrong type); the
 * pages' failures on the service's side as pages. Anything else (unknown path) goes on to the service's error handler.
 */
const oauthErrors =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const err = thrown as Error & { status?: number };
      if (!(err instanceof OAuthError) && PAGE_PATHS.test(ctx.path) && (toAppError(err)?.status ?? 500) >= 500) return failurePage(ctx, err, logger);
      if (!(err instanceof OAuthError) && !(RFC_ERROR_PATHS.test(ctx.path) && [400, 413, 415].includes(err.status ?? 0))) throw err;
      const oauthError =
        err instanceof OAuthError
          ? err
          : new OAuthError(
              'invalid_request',
              err instanceof AppError ? err.message : err.status === 413 ? 'The request body is larger than 1 MiB' : 'Malformed request body',
            );
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

export async function createOAuth(deps: { orm: MikroORM; config: Config; logger: Logger; services: Services; failures?: FailureLimit }): Promise<OAuth> {
  await ensureActiveSigningKey(deps.orm.em);
  const keys = new KeyStore(deps.orm.em);
  const tokens = new TokenService(deps.orm.em, keys, deps.config.publicUrl);
  const router = new Router();
  const ctx = { orm: deps.orm, config: deps.config, logger: deps.logger, services: deps.services, keys, tokens, failures: deps.failures };
  tokenRoutes(router, ctx);
  metadataRoutes(router, ctx);
  revocationRoutes(router, ctx);
  authorizeRoutes(router, ctx);
  accountRoutes(router, ctx);
  const stopPurge = schedulePurge(deps.orm.em, deps.logger);
  return { keys, tokens, router, errors: oauthErrors(deps.logger), stop: stopPurge };
}
