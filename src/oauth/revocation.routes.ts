import type Router from '@koa/router';
import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../shared/errors.js';
import { hashSecret } from '../shared/secrets.js';
import { bearerToken } from '../shared/bearer.js';
import { User, presentUser } from '../modules/user/index.js';
import { Credential, OAuthToken, OAuthError, revokeTokens, TokenService } from '../modules/oauth/index.js';
import { authenticateClient, bodyOf, param } from './client.auth.js';
import type { OAuthDeps } from './oauth.deps.js';

type Found = { kind: 'access'; row: OAuthToken; exp: number } | { kind: 'refresh'; row: OAuthToken };

/** An access token (a JWT of ours, expired or not) or a refresh token, with its row; undefined when unknown. */
async function findToken(em: EntityManager, tokens: TokenService, token: string): Promise<Found | undefined> {
  if (TokenService.peekTokenId(token)) {
    let claims;
    try {
      claims = await tokens.verifySignature(token, { allowExpired: true });
    } catch (err) {
      // Not one of ours (a bad signature, an unknown key): unknown. Anything else (no database connection in time)
      // is no answer about the token: never "inactive" for a token that may be good, nor "revoked" when it is not.
      if (err instanceof AppError) return undefined;
      throw err;
    }
    const row = await em.findOne(OAuthToken, { id: claims.tokenId });
    return row ? { kind: 'access', row, exp: claims.exp } : undefined;
  }
  if (token.length > 200) return undefined;
  const row = await em.findOne(OAuthToken, { refreshHash: hashSecret(token) });
  return row ? { kind: 'refresh', row } : undefined;
}

function bearer(ctx: Context): string {
  const token = bearerToken(ctx.get('authorization') || undefined);
  if (!token)
    throw new OAuthError('invalid_token', 'An access token is required: Authorization: Bearer <token>', { 'WWW-Authenticate': 'Bearer realm="oauth"' });
  return token;
}

/** POST /oauth/revoke (RFC 7009), POST /oauth/introspect (RFC 7662), GET|POST /oauth/me. */
export function revocationRoutes(router: Router, deps: OAuthDeps) {
  router.post('/oauth/revoke', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = bodyOf(ctx);
    const em = deps.orm.em.fork();
    const client = await authenticateClient(ctx, em, body, deps.failures);
    const token = param(body, 'token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const found = await findToken(em, deps.tokens, token);
    // Unknown tokens and other clients' tokens: 200 and nothing happens (RFC 7009 2.2: no probing).
    if (found && found.row.credential === client.id) {
      // Revoking a refresh token ends its family's access tokens too; an access token ends its own row.
      await revokeTokens(
        em,
        found.kind === 'refresh' ? { business: found.row.business, family: found.row.family } : { business: found.row.business, id: found.row.id },
      );
    }
    ctx.status = 200;
    ctx.body = {};
  });

  router.post('/oauth/introspect', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = bodyOf(ctx);
    const em = deps.orm.em.fork();
    const client: Credential = await authenticateClient(ctx, em, body, deps.failures);
    const token = param(body, 'token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    ctx.body = { active: false };
    const found = await findToken(em, deps.tokens, token);
    // A resource server may ask about tokens of its own business only.
    if (!found || found.row.business !== client.business || found.row.revokedAt) return;
    const now = Date.now();
    let scope = found.row.scopes.join(' ');
    if (found.kind === 'access') {
      try {
        // What the token may do now: its scopes as its user's role narrows them (a refresh token is narrowed when used).
        scope = [...(await deps.tokens.verifyAccessToken(token)).scopes].join(' ');
      } catch (err) {
        if (err instanceof AppError) return;
        throw err;
      }
    } else if (found.row.refreshUsedAt || !found.row.refreshExpiresAt || found.row.refreshExpiresAt.getTime() < now) {
      return;
    }
    const exp = found.kind === 'access' ? found.row.accessExpiresAt : found.row.refreshExpiresAt!;
    // `client_id` is the OAuth client id, as in the token's claim (RFC 7662 2.2, RFC 9068 2.2); `credential` is our id.
    const issuedTo = found.row.credential === client.id ? client : await em.findOne(Credential, { id: found.row.credential });
    if (!issuedTo) return; // deleted meanwhile: its tokens went with it
    ctx.body = {
      active: true,
      scope,
      client_id: issuedTo.clientId,
      sub: found.row.user,
      token_type: found.kind === 'access' ? 'Bearer' : 'refresh_token',
      exp: Math.floor(exp.getTime() / 1000),
      iat: Math.floor(found.row.createdAt.getTime() / 1000),
      iss: deps.config.publicUrl,
      jti: found.row.id,
      business: found.row.business,
      credential: found.row.credential,
    };
  });

  const me = async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    const token = bearer(ctx);
    let userId: string;
    try {
      userId = (await deps.tokens.verifyAccessToken(token)).userId;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      throw new OAuthError('invalid_token', err.message, {
        'WWW-Authenticate': `Bearer realm="oauth", error="invalid_token", error_description="${err.message.replace(/"/g, "'")}"`,
      });
    }
    const user = await deps.orm.em.fork().findOne(User, { id: userId });
    if (!user) throw new OAuthError('invalid_token', 'The user of this token no longer exists');
    ctx.body = { data: presentUser(user), object: 'user' };
  };
  router.get('/oauth/me', me);
  router.post('/oauth/me', me);
}
