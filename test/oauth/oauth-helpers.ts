import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { requestFrom } from '../helpers/from-address.js';

/**
 * A tiny browser: keeps cookies, never follows redirects (tests look at each Location). `from`: the loopback address
 * its requests come from (ATTACKER, RIGHTFUL), else the default one.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly from?: string) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = this.from ? await this.requestFrom(this.from, url, init, headers) : await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  private async requestFrom(address: string, url: string, init: RequestInit, headers: Headers): Promise<Response> {
    const sent: Record<string, string> = {};
    headers.forEach((value, name) => (sent[name] = value));
    const answer = await requestFrom(address, url, { method: init.method, headers: sent, body: init.body as string | undefined });
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) for (const v of [value ?? []].flat()) out.append(name, v);
    return new Response(answer.status === 204 ? null : answer.text, { status: answer.status, headers: out });
  }

  postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in page:\n${html.slice(0, 500)}`);
  return match[1];
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The PKCE pair of the tests' authorization requests that name no challenge of their own: PKCE is required. */
export const TEST_PKCE = pkcePair();

const namesChallenge = (params: Record<string, string>) => 'code_challenge' in params || 'codeChallenge' in params;

/** The authorization URL, with TEST_PKCE's challenge unless `params` names one (an empty one: none). */
export function authorizeUrl(server: TestServer, params: Record<string, string>): string {
  const pkce: Record<string, string> = namesChallenge(params) ? {} : { code_challenge: TEST_PKCE.challenge, code_challenge_method: 'S256' };
  return `${server.url}/oauth/authorize?${new URLSearchParams({ ...params, ...pkce })}`;
}

/** GET the authorize URL, sign in on the page, and return the consent page. */
export async function signIn(server: TestServer, browser: Browser, url: string, who: { email: string; password: string }) {
  const page = await browser.request(url);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('Sign in')) throw new Error(`expected the sign-in page, got ${page.status}: ${html.slice(0, 300)}`);
  const posted = await browser.postForm(url, { csrf: hiddenField(html, 'csrf'), action: 'signin', email: who.email, password: who.password });
  if (posted.status !== 303) throw new Error(`sign-in failed: ${posted.status}`);
  const consent = await browser.request(new URL(posted.headers.get('location')!, server.url).toString());
  return { status: consent.status, html: await consent.text() };
}

/** A new browser at `client`'s authorization request for `scope`, signed in there as `who`: the page it is shown next. */
export async function signedInToAuthorize(
  server: TestServer,
  client: Pick<Tenant, 'clientId' | 'redirectUri'>,
  who: { email: string; password: string },
  params: { scope: string; state: string },
) {
  const browser = new Browser();
  const url = authorizeUrl(server, { responseType: 'code', clientId: client.clientId, redirectUri: client.redirectUri, ...params });
  return { browser, url, consent: await signIn(server, browser, url, who) };
}

/**
 * The whole browser part: sign in, allow, and return the redirect's parameters. Unless `params` names a challenge,
 * TEST_PKCE's is sent (authorizeUrl), and `codeVerifier` is the verifier to exchange the code with.
 */
export async function authorizeCode(
  server: TestServer,
  tenant: Pick<Tenant, 'clientId' | 'redirectUri' | 'email' | 'password'>,
  params: Record<string, string> = {},
  browser = new Browser(),
): Promise<URL & { codeVerifier?: string }> {
  const merged: Record<string, string> = {
    responseType: 'code',
    clientId: tenant.clientId,
    redirectUri: tenant.redirectUri,
    scope: 'surveys:read,credentials:read',
    state: 'xyz',
    ...params,
  };
  // An empty value drops the parameter (to switch to the RFC spellings); an empty challenge is sent, to send none.
  const url = authorizeUrl(server, Object.fromEntries(Object.entries(merged).filter(([k, v]) => v !== '' || k === 'code_challenge')));
  const consent = await signIn(server, browser, url, tenant);
  if (consent.status !== 200) throw new Error(`expected consent page: ${consent.status} ${consent.html.slice(0, 300)}`);
  const res = await browser.postForm(url, { csrf: hiddenField(consent.html, 'csrf'), action: 'consent', decision: 'allow' });
  if (res.status !== 303) throw new Error(`consent failed: ${res.status}`);
  return Object.assign(new URL(res.headers.get('location')!), { codeVerifier: namesChallenge(params) ? undefined : TEST_PKCE.verifier });
}

/** The JSON token request for a code from authorizeCode: the redirect URI and the verifier it was issued with. */
export function exchangeFields(callback: URL & { codeVerifier?: string }, tenant: Pick<Tenant, 'clientId' | 'clientSecret' | 'redirectUri'>) {
  return {
    clientId: tenant.clientId,
    clientSecret: tenant.clientSecret,
    grantType: 'authorization_code',
    code: callback.searchParams.get('code'),
    redirectUri: tenant.redirectUri,
    ...(callback.codeVerifier ? { codeVerifier: callback.codeVerifier } : {}),
  };
}

export async function postJson(server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** The token endpoint's refresh_token grant, the client authenticating with its id and `clientSecret` in the body. */
export const refreshGrant = (server: TestServer, client: { clientId: string; clientSecret: string }, refreshToken: string) =>
  postJson(server, '/oauth/token', { clientId: client.clientId, clientSecret: client.clientSecret, grantType: 'refresh_token', refreshToken });

export async function postForm(server: TestServer, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

export const BUSINESS_QUERY = 'query($id: ID!) { business(id: $id) { id name } }';
