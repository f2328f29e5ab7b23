import { randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify, decodeJwt } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { hashSecret } from '../../shared/secrets.js';
import { isId } from '../../shared/id.js';
import { isScope, type Scope } from '../../auth/scopes.js';
import type { Principal } from '../../auth/principal.js';
import { OAuthToken } from './oauth-token.entity.js';
import { narrowToRole } from '../../auth/roles.js';
import type { KeyStore } from './signing-key.service.js';
import { ACCESS_TOKEN_TTL_S, ACCESS_TOKEN_TYP, JWT_ALG, REFRESH_TOKEN_TTL_S, SESSION_TTL_S } from './oauth.model.js';

import { cachedCheck, rememberCheck, type CheckResult } from './revocation.cache.js';
import { tokenStanding } from './oauth.repo.js';

const SESSION_TYP = 'session+jwt';

export interface TokenGrant {
  credential: string;
  clientId: string;
  business: string;
  user: string;
  scopes: readonly string[];
  /** Joins an existing refresh family (rotation); a new family otherwise. */
  family?: string;
  withRefreshToken: boolean;
  authorizationCode?: string;
}

/** The key access tokens are signed with, as KeyStore.signingKey() gives it. */
export type Signer = Awaited<ReturnType<KeyStore['signingKey']>>;

export interface IssuedToken {
  row: OAuthToken;
  accessToken: string;
  refreshToken: string | null;
}

/** The Token object of interface 2.2 (JSON requests). */
export function presentToken(issued: IssuedToken) {
  return {
    id: issued.row.id,
    object: 'token',
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    tokenType: 'Bearer' as const,
    scope: [...issued.row.scopes],
    credential: issued.row.credential,
    user: issued.row.user,
    issuedAt: issued.row.createdAt.getTime(),
    expiresAt: issued.row.accessExpiresAt.getTime(),
  };
}

/** RFC 6749 section 5.1 (form requests). */
export function presentTokenRfc(issued: IssuedToken) {
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer' as const,
    expires_in: Math.round((issued.row.accessExpiresAt.getTime() - issued.row.createdAt.getTime()) / 1000),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    scope: issued.row.scopes.join(' '),
  };
}

/** Signs access tokens and verifies them: signature with cached keys, RS512 only, expiry, issuer, then revocation. */
export interface VerifiedClaims {
  tokenId: string;
  userId: string;
  businessId: string;
  credentialId: string;
  scope: string;
  exp: number;
  iat: number;
}

/** Verified tokens kept per process (by their exact text) so a busy client costs one RSA verification, not one per call. */
const VERIFIED_CACHE_SIZE = 10_000;

export class TokenService {
  private readonly verified = new Map<string, VerifiedClaims>();
  private readonly principals = new Map<string, { principal: Principal; exp: number }>();

  constructor(
    private readonly rootEm: EntityManager,
    readonly keys: KeyStore,
    readonly issuer: string,
  ) {}

  /**
   * The signing key, to take before the transaction that issues opens: loading it (the first use, and once a minute
   * after) takes a pool connection of its own, which a request holding its transaction's must never wait for.
   */
  signer(): Promise<Signer> {
    return this.keys.signingKey();
  }

  /** Creates the token row inside `em` (flushed by the caller's transaction) and signs the access token with `signer`. */
  async issue(em: EntityManager, signer: Signer, grant: TokenGrant): Promise<IssuedToken> {
    const now = Date.now();
    const refreshToken = grant.withRefreshToken ? `rt_${randomBytes(32).toString('base64url')}` : null;
    const row = em.create(OAuthToken, {
      family: grant.family ?? '',
      credential: grant.credential,
      business: grant.business,
      user: grant.user,
      scopes: [...grant.scopes],
      refreshHash: refreshToken ? hashSecret(refreshToken) : null,
      accessExpiresAt: new Date(now + ACCESS_TOKEN_TTL_S * 1000),
      refreshExpiresAt: refreshToken ? new Date(now + REFRESH_TOKEN_TTL_S * 1000) : null,
      authorizationCode: grant.authorizationCode ?? null,
      createdAt: new Date(now),
    });
    row.family ||= row.id;
    const { kid, key } = signer;
    const accessToken = await new SignJWT({ scope: row.scopes.join(' '), cid: grant.credential, bus: grant.business, client_id: grant.clientId })
      .setProtectedHeader({ alg: JWT_ALG, kid, typ: ACCESS_TOKEN_TYP })
      .setIssuer(this.issuer)
      .setSubject(grant.user)
      .setJti(row.id)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + ACCESS_TOKEN_TTL_S)
      .sign(key);
    return { row, accessToken, refreshToken };
  }

  /**
   * Signature, algorithm, type, issuer and expiry, locally. Throws AppError 'unauthorized' with the reason.
   * `allowExpired` is for revocation and introspection, which must still recognise an expired token.
   */
  async verifySignature(token: string, options: { allowExpired?: boolean } = {}): Promise<VerifiedClaims> {
    if (!options.allowExpired) {
      // The same bytes verified before: skip the RSA work. Expiry is still checked on every use.
      const known = this.verified.get(token);
      if (known) {
        if (known.exp * 1000 > Date.now()) return known;
        this.verified.delete(token);
        throw new AppError('unauthorized', 'The access token has expired');
      }
    }
    const claims = await this.verifyJwt(token, options);
    if (!options.allowExpired) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims;
  }

  private async verifyJwt(token: string, options: { allowExpired?: boolean }): Promise<VerifiedClaims> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = await this.keys.verificationKey(header.kid);
          if (!key) throw new AppError('unauthorized', 'The access token was signed by an unknown key');
          return key;
        },
        {
          issuer: this.issuer,
          algorithms: [JWT_ALG],
          typ: ACCESS_TOKEN_TYP,
          requiredClaims: ['sub', 'jti', 'exp', 'iat', 'bus', 'cid'],
          clockTolerance: 5,
          ...(options.allowExpired ? { currentDate: new Date(0) } : {}),
        },
      );
      const { sub, jti, bus, cid, scope } = payload as Record<string, unknown>;
      if (!isId('token', jti) || !isId('user', sub) || !isId('business', bus) || !isId('credential', cid) || typeof scope !== 'string') {
        throw new AppError('unauthorized', 'The access token has malformed claims');
      }
      return { tokenId: jti, userId: sub, businessId: bus, credentialId: cid, scope, exp: payload.exp!, iat: payload.iat! };
    } catch (err) {
      // Our own failures (the keys not loaded: no database connection in time) are not the token's.
      if (err instanceof AppError || !(err instanceof joseErrors.JOSEError)) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new AppError('unauthorized', 'The access token has expired');
      if (err instanceof joseErrors.JOSEAlgNotAllowed) throw new AppError('unauthorized', 'The access token must be signed with RS512');
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
        throw new AppError('unauthorized', 'The access token signature is invalid');
      }
      if (err instanceof joseErrors.JWTClaimValidationFailed) {
        throw new AppError('unauthorized', `The access token is not valid: ${err.message}`);
      }
      throw new AppError('unauthorized', 'The access token is malformed');
    }
  }

  /** Full verification for a resource request: the local checks, then revocation and membership (cached briefly). */
  async verifyAccessToken(token: string): Promise<Principal> {
    // Fast path: this exact token was verified, has not expired, and its revocation check is fresh.
    const hit = this.principals.get(token);
    if (hit && hit.exp * 1000 > Date.now()) {
      const fresh = cachedCheck(hit.principal.tokenId);
      if (fresh?.ok && fresh.role === hit.principal.role) return hit.principal;
    }
    const claims = await this.verifySignature(token);
    const check = await this.check(claims.businessId, claims.tokenId);
    if (!check.ok) throw new AppError('unauthorized', check.message);
    // The token's scopes, narrowed to what the user's role allows now: a member demoted after the token was issued
    // loses the scopes of their old role within REVOCATION_CACHE_MS, without a new token.
    const { granted } = narrowToRole(claims.scope.split(' ').filter(isScope), check.role);
    const scopes = new Set<Scope>(granted);
    const principal = {
      userId: claims.userId,
      businessId: claims.businessId,
      credentialId: claims.credentialId,
      tokenId: claims.tokenId,
      scopes,
      role: check.role,
    };
    if (this.principals.size >= VERIFIED_CACHE_SIZE) this.principals.clear();
    this.principals.set(token, { principal, exp: claims.exp });
    return principal;
  }

  private async check(business: string, tokenId: string): Promise<CheckResult> {
    const cached = cachedCheck(tokenId);
    if (cached) return cached;
    // On a fork: never inside a transaction of the request that asks.
    const row = await tokenStanding(this.rootEm.fork(), business, tokenId);
    const result: CheckResult = !row
      ? { ok: false, message: 'The access token has been revoked' }
      : row.revoked
        ? { ok: false, message: 'The access token has been revoked' }
        : !row.role
          ? { ok: false, message: "The token's user is no longer a member of its business" }
          : { ok: true, role: row.role };
    rememberCheck(tokenId, result);
    return result;
  }

  /**
   * The sign-in session of the authorization pages: a short JWT in an HttpOnly cookie, never an access token. It
   * carries the user's session version (`ver`), which a password reset moves on (sessionStands).
   */
  async signSession(user: { id: string; sessionVersion: number }): Promise<string> {
    const { kid, key } = await this.keys.signingKey();
    return new SignJWT({ ver: user.sessionVersion })
      .setProtectedHeader({ alg: JWT_ALG, kid, typ: SESSION_TYP })
      .setIssuer(this.issuer)
      .setAudience(`${this.issuer}/oauth/authorize`)
      .setSubject(user.id)
      .setIssuedAt()
      .setExpirationTime(`${SESSION_TTL_S}s`)
      .sign(key);
  }

  async verifySession(token: string | undefined): Promise<string | undefined> {
    return (await this.verifySessionClaims(token))?.user;
  }

  /** The session's user and the session version it was issued at (0 when it carries none: issued before versions). */
  async verifySessionClaims(token: string | undefined): Promise<{ user: string; version: number } | undefined> {
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = await this.keys.verificationKey(header.kid);
          if (!key) throw new Error('unknown key');
          return key;
        },
        { issuer: this.issuer, audience: `${this.issuer}/oauth/authorize`, algorithms: [JWT_ALG], typ: SESSION_TYP },
      );
      const version = payload.ver ?? 0;
      return isId('user', payload.sub) && Number.isSafeInteger(version) ? { user: payload.sub, version: version as number } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The `jti` of something that looks like one of our JWTs, without verifying it (revocation of expired tokens). */
  static peekTokenId(token: string): string | undefined {
    try {
      const jti = decodeJwt(token).jti;
      return isId('token', jti) ? jti : undefined;
    } catch {
      return undefined;
    }
  }
}
