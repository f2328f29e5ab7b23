import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type Credential,
  AuthorizationCode,
  AUTHORIZATION_CODE_TTL_S,
  SESSION_TTL_S,
  orderScopes,
  splitScopes,
  unknownScopes,
  strictClient,
} from '../modules/oauth/index.js';
import { Business } from '../modules/business/index.js';
import { User, Membership, normaliseEmail } from '../modules/user/index.js';
import { narrowToRole } from '../auth/roles.js';
import { constantTimeEqual, hashPassword, hashSecret, verifyPassword } from '../shared/secrets.js';
import type { Scope } from '../auth/scopes.js';
import { findClient } from './client.auth.js';
import { businessChoicePage, consentPage, errorPage, signInPage } from './authorize.pages.js';
import { pageHeaders, postFromOwnPages, sendHtml } from '../http/html.js';
import { signInFailures } from './sign-in.limit.js';
import { AppError } from '../shared/errors.js';
import type { OAuthDeps } from './oauth.deps.js';
import type { OAuthSettings } from '../config.js';

export const SESSION_COOKIE = 'oauth_session';
const CSRF_COOKIE = 'oauth_csrf';

/** A request we must not redirect for (unknown client, unregistered redirect URI): an error page instead. */
class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
  ) {
    super(title);
  }
}

/** A request whose client and redirect URI are trusted: errors go back to the client (RFC 6749 4.1.2.1). */
class RedirectError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

interface AuthorizeRequest {
  client: Credential;
  redirectUri: string;
  state?: string;
  scopes: Scope[];
  codeChallenge?: string;
}

function queryParam(ctx: Context, camel: string, snake?: string): string | undefined {
  const names = snake ? [camel, snake] : [camel];
  const values = names.map((n) => ctx.query[n]).filter((v) => v !== undefined);
  if (values.length > 1 || values.some((v) => Array.isArray(v))) {
    throw new PageError(400, `The parameter ${snake ?? camel} was given more than once`);
  }
  const value = values[0] as string | undefined;
  return value === '' ? undefined : value;
}

/** The built-in first-party client (no business of its own): its one redirect address follows PUBLIC_URL. */
const firstParty = (client: Credential) => client.business === null;
const portalRedirectUri = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/portal/callback`;

async function parseRequest(ctx: Context, em: EntityManager, publicUrl: string, settings: OAuthSettings): Promise<AuthorizeRequest> {
  const clientId = queryParam(ctx, 'clientId', 'client_id');
  if (!clientId) throw new PageError(400, 'The request names no application (clientId is missing)');
  // With its secret's hash: a client without one must use PKCE (strictClient).
  const client = await findClient(em, clientId, { withSecret: true });
  if (!client) throw new PageError(400, 'This application is unknown: the link that brought you here is wrong or out of date');
  const redirectUri = queryParam(ctx, 'redirectUri', 'redirect_uri');
  if (!redirectUri) throw new PageError(400, 'The request has no redirectUri');
  // Exact string comparison, never a prefix or a pattern: no open redirect.
  const registered = firstParty(client) ? [portalRedirectUri(publicUrl)] : client.validRedirectUris;
  if (!registered.includes(redirectUri)) {
    throw new PageError(400, 'The redirect address of this request is not registered for this application');
  }
  const state = queryParam(ctx, 'state');
  const responseType = queryParam(ctx, 'responseType', 'response_type');
  const partial = { client, redirectUri, state };
  const fail = (error: string, description: string) => Object.assign(new RedirectError(error, description), { request: partial });
  if (!responseType) throw fail('invalid_request', 'responseType (response_type) is required');
  if (responseType !== 'code') throw fail('unsupported_response_type', 'responseType must be code');
  const scopes = splitScopes(queryParam(ctx, 'scope'));
  if (!scopes.length) throw fail('invalid_scope', 'scope is required');
  const unknown = unknownScopes(scopes);
  if (unknown.length) throw fail('invalid_scope', `Unknown scope: ${unknown.join(', ')}`);
  const codeChallenge = queryParam(ctx, 'codeChallenge', 'code_challenge');
  const method = queryParam(ctx, 'codeChallengeMethod', 'code_challenge_method');
  if (codeChallenge || method) {
    if (method !== 'S256') throw fail('invalid_request', 'code_challenge_method must be S256');
    if (!codeChallenge || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
      throw fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
    }
  }
  if (!codeChallenge && strictClient(client, settings)) {
    throw fail('invalid_request', 'code_challenge is required (PKCE, S256): send code_challenge and code_challenge_method=S256');
  }
  return { client, redirectUri, state, scopes: orderScopes(scopes), codeChallenge };
}

function redirectTo(ctx: Context, base: string, params: Record<string, string | undefined>, issuer: string) {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  ctx.status = 303;
  ctx.redirect(url.toString());
}

// No form-action: consent answers its post with a redirect to the client's own address.
export const secureHeaders = (ctx: Context) => pageHeaders(ctx, "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");

export function cookieOptions(ctx: Context, maxAgeS: number) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: ctx.secure, path: '/oauth', maxAge: maxAgeS * 1000, overwrite: true };
}

/** Double-submit CSRF token: a random value in an HttpOnly SameSite cookie that each form echoes in a hidden field. */
export function csrfToken(ctx: Context): string {
  let token = ctx.cookies.get(CSRF_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
    token = randomBytes(32).toString('base64url');
    ctx.cookies.set(CSRF_COOKIE, token, cookieOptions(ctx, SESSION_TTL_S));
  }
  return token;
}

/** The double-submit token, and a browser's word that the post came from our own pages. */
export function csrfValid(ctx: Context, sent: unknown, publicOrigin: string): boolean {
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  if (!cookie || typeof sent !== 'string' || !constantTimeEqual(sent, cookie)) return false;
  return postFromOwnPages(ctx, publicOrigin);
}

let dummyHash: Promise<string> | undefined;

/**
 * The account the password opens, if any. An account whose address is not confirmed has no password (its owner
 * chooses one on confirming), so it answers as an unknown address does, with the same work: timing tells nothing.
 */
async function checkPassword(em: EntityManager, email: string, password: string): Promise<User | undefined> {
  const user = await em.findOne(User, { email: normaliseEmail(email) }, { populate: ['passwordHash'] });
  if (!user?.passwordHash || !user.emailVerifiedAt) {
    dummyHash ??= hashPassword('not a real password');
    await verifyPassword(password, await dummyHash);
    return undefined;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}

/**
 * A session stands while its user's address is proved and no password reset came after it was issued: it carries the
 * user's session version of then, which each reset moves on (no clock compared, so a sign-in the moment after a reset
 * stands, and one whose password was checked before the reset committed does not).
 */
function sessionStands(user: User, version: number): boolean {
  return !!user.emailVerifiedAt && version === user.sessionVersion;
}

/** GET and POST /oauth/authorize: sign in, consent, then redirect with a code (or an error) to the client. */
export function authorizeRoutes(router: Router, deps: OAuthDeps) {
  const issuer = deps.config.publicUrl;
  // Wrong passwords per (e-mail, address) and per address refuse that address; per e-mail they only slow it.
  const signIn = signInFailures(deps.orm.em);

  const handle = async (ctx: Context) => {
    secureHeaders(ctx);
    const em = deps.orm.em.fork();
    let request: AuthorizeRequest;
    try {
      request = await parseRequest(ctx, em, issuer, deps.config.oauth);
    } catch (err) {
      if (err instanceof PageError) return sendHtml(ctx, err.status, errorPage({ title: 'This sign-in link cannot be used', message: err.title }));
      if (err instanceof RedirectError) {
        const { redirectUri, state } = (err as RedirectError & { request: { redirectUri: string; state?: string } }).request;
        return redirectTo(ctx, redirectUri, { error: err.error, error_description: err.description, state }, issuer);
      }
      throw err;
    }
    const { client, redirectUri, state } = request;
    // prompt=login (OpenID Connect's word, used by the portal's sign-out) ends the session here and asks again; the
    // forms post to the address without it, so signing in does not loop back to this.
    const promptLogin = ctx.method === 'GET' && ctx.query.prompt === 'login';
    const query = new URLSearchParams(ctx.querystring);
    query.delete('prompt');
    const action = `/oauth/authorize?${query}`;
    if (promptLogin) ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx, 0), maxAge: 0 });
    const csrf = csrfToken(ctx);
    // Sign-up comes back here when done (a partner's request; the portal starts afresh: see account.routes.ts).
    const links = {
      signupHref: deps.config.signup === 'open' ? `/oauth/signup?${new URLSearchParams({ continue: action })}` : undefined,
      forgotHref: '/oauth/password/forgot',
    };
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};

    if (ctx.method === 'POST') {
      if (!csrfValid(ctx, body.csrf, issuer)) {
        return sendHtml(
          ctx,
          403,
          errorPage({ title: 'Please try again', message: 'This form has expired or did not come from this site. Go back, reload the page and try again.' }),
        );
      }
      if (body.action === 'signin') {
        const email = typeof body.email === 'string' ? body.email : '';
        const password = typeof body.password === 'string' ? body.password : '';
        const account = normaliseEmail(email);
        let admission;
        try {
          admission = await signIn.admit(account, ctx.ip);
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'rate_limited')) throw err;
          const wait = Number(err.headers?.['Retry-After'] ?? 1);
          ctx.set('Retry-After', String(wait));
          const minutes = Math.ceil(wait / 60);
          return sendHtml(
            ctx,
            429,
            signInPage({
              ...links,
              action,
              csrf,
              appName: client.name,
              email,
              error: `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
            }),
          );
        }
        const user = email && password && password.length <= 1024 ? await checkPassword(em, email, password) : undefined;
        if (!user) {
          await signIn.failed(account, ctx.ip);
          return sendHtml(ctx, 401, signInPage({ ...links, action, csrf, appName: client.name, email, error: 'Wrong e-mail or password.' }));
        }
        await signIn.succeeded(admission);
        ctx.cookies.set(SESSION_COOKIE, await deps.tokens.signSession(user), cookieOptions(ctx, SESSION_TTL_S));
        ctx.status = 303;
        return ctx.redirect(action);
      }
      if (body.action === 'signout') {
        ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx, 0), maxAge: 0 });
        ctx.status = 303;
        return ctx.redirect(action);
      }
    }

    const session = promptLogin ? undefined : await deps.tokens.verifySessionClaims(ctx.cookies.get(SESSION_COOKIE));
    const user = session ? await em.findOne(User, { id: session.user }) : null;
    if (!user || !sessionStands(user, session!.version))
      return sendHtml(ctx, ctx.method === 'POST' ? 401 : 200, signInPage({ ...links, action, csrf, appName: client.name }));

    if (firstParty(client)) return chooseBusiness(ctx, em, { request, user, action, csrf, body, issuer });

    const business = client.business ? await em.findOne(Business, { id: client.business }) : null;
    const member = business ? await em.findOne(Membership, { user: user.id, business: business.id }, { fields: ['role'] }) : null;
    if (!business || !member) {
      return sendHtml(
        ctx,
        403,
        errorPage({
          title: 'You cannot allow this application',
          message: `${user.email} is not a member of the business that ${client.name} belongs to.`,
          signOut: { action, csrf },
        }),
      );
    }

    // A member is never given what their role does not allow (src/auth/roles.ts). The rest is still worth asking
    // for, as RFC 6749 3.3 lets a server grant less than asked: the page says what is left out, the token's `scope`
    // says what was granted. Nothing left to grant is a dead end, said on a page rather than in a redirect.
    const { granted, dropped } = narrowToRole(request.scopes, member.role);
    if (!granted.length) {
      return sendHtml(
        ctx,
        403,
        errorPage({
          title: 'You cannot allow this application',
          message: `${client.name} asks only for access that your role in ${business.name} (${member.role}) does not allow: ${dropped.join(', ')}. Ask an owner of the business.`,
          signOut: { action, csrf },
        }),
      );
    }

    if (ctx.method === 'POST' && body.action === 'consent') {
      if (body.decision === 'deny') {
        return redirectTo(ctx, redirectUri, { error: 'access_denied', error_description: 'The user denied access', state }, issuer);
      }
      if (body.decision === 'allow') return issueCode(ctx, em, request, { business: business.id, user: user.id, scopes: granted }, issuer);
    }
    return sendHtml(
      ctx,
      200,
      consentPage({
        action,
        csrf,
        appName: client.name,
        businessName: business.name,
        userEmail: user.email,
        scopes: granted,
        dropped: { role: member.role, scopes: dropped },
      }),
    );
  };

  router.get('/oauth/authorize', handle);
  router.post('/oauth/authorize', handle);
}

/** A single-use code for this request, then back to the client with it. */
async function issueCode(
  ctx: Context,
  em: EntityManager,
  request: AuthorizeRequest,
  grant: { business: string; user: string; scopes: Scope[] },
  issuer: string,
) {
  const code = `ac_${randomBytes(32).toString('base64url')}`;
  em.create(AuthorizationCode, {
    codeHash: hashSecret(code),
    credential: request.client.id,
    business: grant.business,
    user: grant.user,
    redirectUri: request.redirectUri,
    scopes: grant.scopes,
    codeChallenge: request.codeChallenge ?? null,
    expiresAt: new Date(Date.now() + AUTHORIZATION_CODE_TTL_S * 1000),
  });
  await em.flush();
  return redirectTo(ctx, request.redirectUri, { code, state: request.state }, issuer);
}

/**
 * The first-party client (the portal) belongs to no business: its user picks one of theirs (at once when they have
 * one, or when the request's `business` names one of them), and the code carries the scopes of their role in it,
 * within those asked for. Nothing to consent to: the portal is the service's own.
 */
async function chooseBusiness(
  ctx: Context,
  em: EntityManager,
  p: { request: AuthorizeRequest; user: User; action: string; csrf: string; body: Record<string, unknown>; issuer: string },
) {
  const memberships = await em.find(Membership, { user: p.user.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const businesses = await em.find(Business, { id: { $in: memberships.map((m) => m.business) } });
  const nameOf = new Map(businesses.map((b) => [b.id, b.name]));
  const asked = p.body.action === 'business' ? p.body.business : ctx.query.business;
  const membership =
    memberships.length === 1 && ctx.query.prompt !== 'select_business'
      ? memberships[0]
      : memberships.find((m) => typeof asked === 'string' && m.business === asked);
  if (membership) {
    const { granted } = narrowToRole(p.request.scopes, membership.role);
    return issueCode(ctx, em, p.request, { business: membership.business, user: p.user.id, scopes: granted }, p.issuer);
  }
  if (!memberships.length) {
    return sendHtml(
      ctx,
      403,
      errorPage({
        title: 'No business yet',
        message: `${p.user.email} is not a member of any business. Ask an owner to invite you.`,
        signOut: { action: p.action, csrf: p.csrf },
      }),
    );
  }
  const choices = memberships.map((m) => ({ id: m.business, name: nameOf.get(m.business) ?? m.business, role: m.role }));
  return sendHtml(ctx, 200, businessChoicePage({ action: p.action, csrf: p.csrf, appName: p.request.client.name, userEmail: p.user.email, choices }));
}
