import { SCOPES } from '../auth/scopes';

/**
 * The portal signs in as the service's own public OAuth client (`portal`: no secret, PKCE S256) through the same
 * authorization-code flow as any partner app. The access token lives in this module's memory only and is refreshed
 * two minutes before it expires; the refresh token (rotated at every use) is kept in sessionStorage, so a reload
 * continues the session and closing the tab ends it here.
 */
const CLIENT_ID = 'portal';
const REFRESH_KEY = 'portal.refreshToken';
const BUSINESS_KEY = 'portal.business';
const PENDING_KEY = 'portal.pendingSignIn';
const redirectUri = () => `${location.origin}/portal/callback`;

export interface Session {
  business: string;
  user: string;
  scopes: string[];
}

interface TokenAnswer {
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  scope: string[];
  user: string;
}

let current: { token: string; expiresAt: number; session: Session } | undefined;
let refreshing: Promise<string> | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

function claims(token: string): { bus: string; sub: string } {
  const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(atob(payload));
}

/** Off to the sign-in page; back to `returnTo` (this page by default) afterwards. */
export async function signIn(options: { returnTo?: string; prompt?: 'login' | 'select_business' } = {}): Promise<never> {
  const verifier = randomString();
  const state = randomString();
  const returnTo = options.returnTo ?? location.pathname + location.search;
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const url = new URL('/oauth/authorize', location.origin);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: SCOPES.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  if (options.prompt) params.prompt = options.prompt;
  // Signing in again (the session ended) returns to the business that was open.
  const business = sessionStorage.getItem(BUSINESS_KEY);
  if (business && options.prompt !== 'select_business') params.business = business;
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  current = undefined;
  location.assign(url.toString());
  return new Promise<never>(() => {});
}

async function tokenCall(body: Record<string, string>): Promise<TokenAnswer | undefined> {
  const response = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: CLIENT_ID, ...body }),
  });
  if (response.status === 400 || response.status === 401) return undefined; // invalid_grant: the session is over
  if (!response.ok) throw new Error(`The sign-in service answered ${response.status}`);
  return (await response.json()) as TokenAnswer;
}

function keep(answer: TokenAnswer): string {
  const { bus } = claims(answer.accessToken);
  current = { token: answer.accessToken, expiresAt: answer.expiresAt, session: { business: bus, user: answer.user, scopes: answer.scope } };
  if (answer.refreshToken) sessionStorage.setItem(REFRESH_KEY, answer.refreshToken);
  sessionStorage.setItem(BUSINESS_KEY, bus);
  clearTimeout(timer);
  // Refreshed ahead of expiry, so no request ever goes out with an expired token.
  timer = setTimeout(() => void refreshNow().catch(() => undefined), Math.max(5_000, answer.expiresAt - Date.now() - 120_000));
  return answer.accessToken;
}

/** A new access token from the refresh token (one call at a time); the sign-in page when the session is gone. */
export function refreshNow(): Promise<string> {
  refreshing ??= (async () => {
    const refreshToken = sessionStorage.getItem(REFRESH_KEY);
    const answer = refreshToken ? await tokenCall({ grantType: 'refresh_token', refreshToken }) : undefined;
    if (!answer) {
      sessionStorage.removeItem(REFRESH_KEY);
      return signIn();
    }
    return keep(answer);
  })().finally(() => (refreshing = undefined));
  return refreshing;
}

export async function accessToken(): Promise<string> {
  if (current && current.expiresAt - Date.now() > 30_000) return current.token;
  return refreshNow();
}

/**
 * At start: finish a sign-in (/portal/callback), or continue the session of this tab, or go to sign in. Resolves with
 * the session and the address to show.
 */
export async function startSession(): Promise<{ session: Session; path: string }> {
  if (location.pathname === '/portal/callback') {
    const params = new URLSearchParams(location.search);
    const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
    sessionStorage.removeItem(PENDING_KEY);
    const code = params.get('code');
    if (!pending || !code || params.get('state') !== pending.state) {
      if (params.get('error')) throw new Error(`Sign-in did not finish: ${params.get('error_description') ?? params.get('error')}`);
      return signIn({ returnTo: '/portal' });
    }
    const answer = await tokenCall({ grantType: 'authorization_code', code, codeVerifier: pending.verifier, redirectUri: redirectUri() });
    if (!answer) return signIn({ returnTo: pending.returnTo });
    keep(answer);
    return { session: current!.session, path: pending.returnTo.startsWith('/portal') ? pending.returnTo : '/portal' };
  }
  await refreshNow();
  return { session: current!.session, path: location.pathname + location.search };
}

/** Revokes the refresh token (and with it the access tokens of its family), then asks for a password again. */
export async function signOut(): Promise<void> {
  const token = sessionStorage.getItem(REFRESH_KEY);
  sessionStorage.removeItem(REFRESH_KEY);
  sessionStorage.removeItem(BUSINESS_KEY);
  clearTimeout(timer);
  current = undefined;
  if (token) {
    await fetch('/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: CLIENT_ID, token }),
    }).catch(() => undefined);
  }
  await signIn({ returnTo: '/portal', prompt: 'login' });
}

export const switchBusiness = () => signIn({ returnTo: '/portal', prompt: 'select_business' });
