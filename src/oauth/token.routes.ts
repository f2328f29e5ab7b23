import type Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import { authenticateClient, bodyOf, param } from './client.auth.js';
import {
  OAuthError,
  clientCredentialsToken,
  exchangeAuthorizationCode,
  refreshTokens,
  strictClient,
  presentToken,
  presentTokenRfc,
  type TokenService,
} from '../modules/oauth/index.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';
import type { Config } from '../config.js';

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'];

/**
 * POST /oauth/token. A JSON body (camelCase, as the spec documents) is answered with the spec's Token object; an
 * RFC 6749 form body (snake_case) with RFC 6749's access_token/token_type/expires_in/refresh_token/scope.
 */
export function tokenRoutes(router: Router, deps: { orm: MikroORM; tokens: TokenService; config: Config; failures?: FailureLimit }) {
  router.post('/oauth/token', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const body = bodyOf(ctx);
    const rfcShape = ctx.is('urlencoded') === 'urlencoded';
    const grantType = param(body, 'grantType', 'grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grantType (grant_type) is required');
    if (!GRANT_TYPES.includes(grantType)) {
      throw new OAuthError('unsupported_grant_type', `grantType must be one of ${GRANT_TYPES.join(', ')}; got '${grantType.slice(0, 50)}'`);
    }
    const em = deps.orm.em.fork();
    const client = await authenticateClient(ctx, em, body, deps.failures);
    const issued =
      grantType === 'authorization_code'
        ? await exchangeAuthorizationCode(em, deps.tokens, client, {
            code: param(body, 'code'),
            redirectUri: param(body, 'redirectUri', 'redirect_uri'),
            codeVerifier: param(body, 'codeVerifier', 'code_verifier'),
            strict: strictClient(client, deps.config.oauth),
          })
        : grantType === 'refresh_token'
          ? await refreshTokens(em, deps.tokens, client, { refreshToken: param(body, 'refreshToken', 'refresh_token'), scope: body.scope })
          : await clientCredentialsToken(em, deps.tokens, client, { scope: body.scope });
    ctx.status = 200;
    ctx.body = rfcShape ? presentTokenRfc(issued) : presentToken(issued);
  });
}
