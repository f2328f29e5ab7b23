import { LockMode, type EntityName, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Credential } from './credential.entity.js';
import { Membership, type MembershipRole } from '../user/index.js';
import { narrowToRole, scopesForRole } from '../../auth/roles.js';
import { constantTimeEqual, hashSecret } from '../../shared/secrets.js';
import { AuthorizationCode } from './authorization-code.entity.js';
import { OAuthToken } from './oauth-token.entity.js';
import { OAuthError } from './oauth-errors.presenter.js';
import { revokeTokens } from './revocation.service.js';
import { orderScopes, splitScopes, unknownScopes } from './scope.rules.js';
import type { IssuedToken, TokenService } from './token.service.js';
import { pkceChallenge } from './pkce.rules.js';

/** The user's role in the business, or undefined when they are not (or no longer) a member. */
async function roleOf(em: EntityManager, user: string, business: string): Promise<MembershipRole | undefined> {
  return (await em.findOne(Membership, { user, business }, { fields: ['role'] }))?.role;
}

/**
 * What a member may be given (src/auth/roles.ts): scopes their role does not allow are left out, as RFC 6749 3.3
 * lets the server do (the answer's `scope` says what was granted); nothing at all left is an error.
 */
function allowedForRole(scopes: readonly string[], role: MembershipRole, error: 'invalid_grant' | 'invalid_scope'): string[] {
  const { granted } = narrowToRole(scopes, role);
  if (!granted.length) throw new OAuthError(error, `The user's role (${role}) allows none of the scopes ${scopes.join(' ')}`);
  return granted;
}

/**
 * The stored code or refresh token being exchanged, locked until the exchange commits so that two exchanges of it
 * cannot both succeed; only the client it was issued to may exchange it.
 */
async function lockIssuedTo<T extends { credential: string }>(
  tx: EntityManager,
  client: Credential,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  what: string,
): Promise<T> {
  const row = await tx.findOne(entity, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!row) throw new OAuthError('invalid_grant', `Unknown ${what}`);
  if (row.credential !== client.id) throw new OAuthError('invalid_grant', `This ${what} was issued to another client`);
  return row as T;
}

/** The role of the user a code or token was issued for: membership may have ended since, which ends the grant. */
async function stillMemberRole(tx: EntityManager, row: { user: string; business: string }): Promise<MembershipRole> {
  const role = await roleOf(tx, row.user, row.business);
  if (!role) throw new OAuthError('invalid_grant', 'The user is no longer a member of the business');
  return role;
}

/** Whom a token is issued to (the client exchanging the grant) and for (the grant's user, in its business). */
const issuedFor = (client: Credential, grant: { business: string; user: string }) => ({
  credential: client.id,
  clientId: client.clientId,
  business: grant.business,
  user: grant.user,
});

/** Scopes asked for at the token endpoint: all when absent, and never more than `allowed`. */
function requestedScopes(raw: unknown, allowed: readonly string[], beyond = 'Scope not granted to this token'): string[] {
  const asked = splitScopes(raw);
  if (!asked.length) return [...allowed];
  const unknown = unknownScopes(asked);
  if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(', ')}`);
  const extra = asked.filter((s) => !allowed.includes(s));
  if (extra.length) throw new OAuthError('invalid_scope', `${beyond}: ${extra.join(', ')}`);
  return orderScopes(asked);
}

interface CodeExchange {
  code?: string;
  redirectUri?: string;
  codeVerifier?: string;
  /** The client is held to OAuth 2.1 (pkce.rules.ts): the verifier and the redirect URI must be sent. */
  strict: boolean;
}

/**
 * What ties a code to the request that got it: its redirect URI and its PKCE challenge. Whatever is sent is checked;
 * a strict client must send both, any client must answer a challenge its request made. A code without a challenge
 * and a verifier sent for it is a confused client (or a downgrade, RFC 9700 4.8.2): refused too.
 */
function checkCodeBinding(row: AuthorizationCode, input: CodeExchange): void {
  // RFC 6749 4.1.3 asks for it again; the interface document's token request has no such field, so only strict clients must.
  if (input.redirectUri === undefined && input.strict)
    throw new OAuthError('invalid_grant', 'redirect_uri (redirectUri) is required: the one of the authorization request');
  if (input.redirectUri !== undefined && input.redirectUri !== row.redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
  }
  if (row.codeChallenge) {
    if (!input.codeVerifier) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE): the authorization request had a code challenge');
    if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(input.codeVerifier) || !constantTimeEqual(pkceChallenge(input.codeVerifier), row.codeChallenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code challenge');
    }
  } else if (input.codeVerifier) {
    throw new OAuthError('invalid_grant', 'code_verifier sent but the authorization request had no code challenge');
  } else if (input.strict) {
    // A code issued before this client was held to PKCE.
    throw new OAuthError('invalid_grant', 'This code was issued without a code challenge, and this client must use PKCE: authorize again with one');
  }
}

export async function exchangeAuthorizationCode(em: EntityManager, tokens: TokenService, client: Credential, input: CodeExchange): Promise<IssuedToken> {
  if (!input.code) throw new OAuthError('invalid_request', 'code is required');
  const codeHash = hashSecret(input.code);
  const signer = await tokens.signer();
  const outcome = await em.transactional(async (tx) => {
    const row = await lockIssuedTo(tx, client, AuthorizationCode, { codeHash }, 'authorization code');
    if (row.usedAt) return { replayedFamily: row.family ?? undefined, business: row.business };
    if (row.expiresAt.getTime() < Date.now()) throw new OAuthError('invalid_grant', 'The authorization code has expired');
    checkCodeBinding(row, input);
    const role = await stillMemberRole(tx, row);
    row.usedAt = new Date();
    const issued = await tokens.issue(tx, signer, {
      ...issuedFor(client, row),
      // The consent page already left out what the role does not allow; the role may have changed since.
      scopes: allowedForRole(row.scopes, role, 'invalid_grant'),
      withRefreshToken: true,
      authorizationCode: codeHash,
    });
    row.family = issued.row.family;
    return { issued };
  });
  if (outcome.issued) return outcome.issued;
  // A replayed code: someone else may hold it. Revoke everything it issued (RFC 6749 4.1.2).
  if (outcome.replayedFamily) await revokeTokens(em.fork(), { business: outcome.business, family: outcome.replayedFamily });
  throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens it issued are revoked');
}

export async function refreshTokens(
  em: EntityManager,
  tokens: TokenService,
  client: Credential,
  input: { refreshToken?: string; scope?: unknown },
): Promise<IssuedToken> {
  if (!input.refreshToken) throw new OAuthError('invalid_request', 'refreshToken (refresh_token) is required');
  const refreshHash = hashSecret(input.refreshToken);
  const signer = await tokens.signer();
  const outcome = await em.transactional(async (tx) => {
    const row = await lockIssuedTo(tx, client, OAuthToken, { refreshHash }, 'refresh token');
    if (row.revokedAt) throw new OAuthError('invalid_grant', 'The refresh token has been revoked');
    if (row.refreshUsedAt) return { reusedFamily: row.family, business: row.business };
    if (!row.refreshExpiresAt || row.refreshExpiresAt.getTime() < Date.now()) {
      throw new OAuthError('invalid_grant', 'The refresh token has expired');
    }
    const role = await stillMemberRole(tx, row);
    const scopes = allowedForRole(requestedScopes(input.scope, row.scopes), role, 'invalid_scope');
    row.refreshUsedAt = new Date();
    const issued = await tokens.issue(tx, signer, {
      ...issuedFor(client, row),
      scopes,
      family: row.family,
      withRefreshToken: true,
    });
    return { issued };
  });
  if (outcome.issued) return outcome.issued;
  // Reuse of a rotated refresh token: it may be stolen. End the whole family (RFC 9700 4.14.2).
  await revokeTokens(em.fork(), { business: outcome.business!, family: outcome.reusedFamily! });
  throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of its family is revoked');
}

/** Client credentials: the token acts for the user who created the credential, in the credential's business. */
export async function clientCredentialsToken(em: EntityManager, tokens: TokenService, client: Credential, input: { scope?: unknown }): Promise<IssuedToken> {
  const { business, createdBy } = client;
  // The built-in public client acts for whoever signs in, never on its own.
  if (!business || !createdBy) throw new OAuthError('unauthorized_client', 'This client may not use the client_credentials grant');
  const signer = await tokens.signer();
  return em.transactional(async (tx) => {
    const role = await roleOf(tx, createdBy, business);
    if (!role) throw new OAuthError('unauthorized_client', "The credential's creator is no longer a member of its business");
    // The token acts for the credential's creator: never more than their role allows now, nor than the credential
    // carries (at most what the token that made it held). A scope asked for beyond either is refused with its name;
    // asked for nothing, the token gets what both allow.
    const roleAllows = requestedScopes(input.scope, scopesForRole(role), `The role of the credential's creator (${role}) does not allow`);
    const scopes = requestedScopes(
      input.scope,
      roleAllows.filter((s) => client.scopes.includes(s)),
      'This credential does not carry',
    );
    if (!scopes.length) throw new OAuthError('invalid_scope', `The credential carries no scope that the role of its creator (${role}) allows`);
    return tokens.issue(tx, signer, {
      ...issuedFor(client, { business, user: createdBy }),
      scopes,
      withRefreshToken: false,
    });
  });
}
