import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import {
  BUSINESS_QUERY,
  Browser,
  TEST_PKCE,
  authorizeCode,
  authorizeUrl,
  basic,
  hiddenField,
  pkcePair,
  postForm,
  postJson,
  signedInToAuthorize,
  signIn,
  refreshGrant,
} from './oauth-helpers.js';

let server: TestServer;
let tenant: Tenant;
useTestServer(async (s) => {
  server = s;
  tenant = await createTenant(s, { businessName: 'Cafe Flow' });
});

describe('authorization code flow over HTTP (spec JSON)', () => {
  it('signs in, consents, exchanges, calls the API, refreshes with rotation, revokes', async () => {
    const { browser, url, consent } = await signedInToAuthorize(server, tenant, tenant, { scope: 'surveys:read,credentials:read', state: 'st-123' });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('Test App');
    expect(consent.html).toContain('Cafe Flow');
    expect(consent.html).toContain('See your surveys and their steps');
    expect(consent.html).not.toMatch(/<script/i);
    // The session cookie: HttpOnly, SameSite=Lax.
    expect(browser.cookies.has('oauth_session')).toBe(true);

    const allowed = await browser.postForm(url, { csrf: hiddenField(consent.html, 'csrf'), action: 'consent', decision: 'allow' });
    expect(allowed.status).toBe(303);
    const callback = new URL(allowed.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(tenant.redirectUri);
    expect(callback.searchParams.get('state')).toBe('st-123');
    const code = callback.searchParams.get('code')!;
    expect(code).toMatch(/^ac_/);

    const exchanged = await postJson(server, '/oauth/token', {
      clientId: tenant.clientId,
      clientSecret: tenant.clientSecret,
      grantType: 'authorization_code',
      code,
      redirectUri: tenant.redirectUri,
      codeVerifier: TEST_PKCE.verifier,
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    const token = exchanged.body;
    expect(token).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^tk_/),
        accessToken: expect.any(String),
        refreshToken: expect.stringMatching(/^rt_/),
        scope: ['surveys:read', 'credentials:read'],
        credential: tenant.credentialId,
        user: tenant.userId,
        issuedAt: expect.any(Number),
        expiresAt: expect.any(Number),
      }),
    );
    expect(token.expiresAt - token.issuedAt).toBe(3600 * 1000);

    const auth = { authorization: `Bearer ${token.accessToken}` };
    const api = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, auth);
    expect(api.body.data).toEqual({ business: { id: tenant.businessId, name: 'Cafe Flow' } });
    const creds = await server.graphql('query($b: ID!) { credentials(business: $b) { total data { id } } }', { b: tenant.businessId }, auth);
    expect(creds.body.data.credentials.data.map((c: { id: string }) => c.id)).toContain(tenant.credentialId);
    // Only the consented scopes.
    const write = await server.graphql(
      'mutation($b: ID!) { createCredential(business: $b, input: {name: "x", validRedirectUris: ["https://a.example/cb"]}) { id } }',
      { b: tenant.businessId },
      auth,
    );
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const me = await fetch(`${server.url}/oauth/me`, { headers: auth });
    expect(me.status).toBe(200);
    // Timestamps in milliseconds, as in every other JSON answer.
    expect(await me.json()).toEqual({
      object: 'user',
      data: expect.objectContaining({ id: tenant.userId, object: 'user', email: tenant.email, createdAt: expect.any(Number), updatedAt: expect.any(Number) }),
    });
    const mePost = await fetch(`${server.url}/oauth/me`, { method: 'POST', headers: auth });
    expect(mePost.status).toBe(200);

    const refreshed = await refreshGrant(server, tenant, token.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshToken).not.toBe(token.refreshToken);
    expect(refreshed.body.accessToken).not.toBe(token.accessToken);
    expect(refreshed.body.scope).toEqual(['surveys:read', 'credentials:read']);
    const auth2 = { authorization: `Bearer ${refreshed.body.accessToken}` };
    expect((await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, auth2)).body.data.business.id).toBe(tenant.businessId);

    // Revoking the refresh token ends the family: both access tokens stop working at once.
    const revoked = await postJson(server, '/oauth/revoke', {
      clientId: tenant.clientId,
      clientSecret: tenant.clientSecret,
      token: refreshed.body.refreshToken,
    });
    expect(revoked.status).toBe(200);
    for (const headers of [auth, auth2]) {
      const after = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, headers);
      expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(after.body.errors[0].message).toMatch(/revoked/);
    }
    const meAfter = await fetch(`${server.url}/oauth/me`, { headers: auth2 });
    expect(meAfter.status).toBe(401);
    expect(meAfter.headers.get('www-authenticate')).toMatch(/invalid_token/);
    expect((await meAfter.json()).error).toBe('invalid_token');
    const refreshAgain = await refreshGrant(server, tenant, refreshed.body.refreshToken);
    expect(refreshAgain.status).toBe(400);
    expect(refreshAgain.body.error).toBe('invalid_grant');
  });

  it('answers a form request with PKCE and HTTP Basic in RFC 6749 shape', async () => {
    const { verifier, challenge } = pkcePair();
    const callback = await authorizeCode(server, tenant, {
      response_type: 'code',
      client_id: tenant.clientId,
      redirect_uri: tenant.redirectUri,
      scope: 'surveys:read metrics:read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      responseType: '',
      clientId: '',
      redirectUri: '',
    });
    const res = await postForm(
      server,
      '/oauth/token',
      { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: tenant.redirectUri, code_verifier: verifier },
      basic(tenant.clientId, tenant.clientSecret),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^rt_/),
      scope: 'surveys:read metrics:read',
    });
  });
});

describe('authorization page', () => {
  it('Deny redirects with access_denied and the state', async () => {
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', state: 's1' });
    const consent = await signIn(server, browser, url, tenant);
    const res = await browser.postForm(url, { csrf: hiddenField(consent.html, 'csrf'), action: 'consent', decision: 'deny' });
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('s1');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it.each([
    ['an unknown client', { clientId: 'nope' }],
    ['no client', { clientId: '' }],
    ['a redirect URI not registered', { redirectUri: 'https://evil.example/callback' }],
    ['a redirect URI with an extra path', { redirectUri: 'http://localhost:8765/callback/../evil' }],
    ['a redirect URI with an extra query', { redirectUri: 'http://localhost:8765/callback?next=https://evil.example' }],
    ['a redirect URI prefix', { redirectUri: 'http://localhost:8765/callbackx' }],
    ['a duplicated parameter', { redirectUri: 'http://localhost:8765/callback', redirect_uri: 'https://evil.example' }],
  ])('%s shows an error page and never redirects', async (_label, override) => {
    const url = authorizeUrl(server, {
      responseType: 'code',
      clientId: tenant.clientId,
      redirectUri: tenant.redirectUri,
      scope: 'surveys:read',
      ...override,
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/cannot be used/);
  });

  it.each([
    ['an unknown scope', { scope: 'surveys:read,everything' }, 'invalid_scope'],
    ['no scope', { scope: '' }, 'invalid_scope'],
    ['another response type', { responseType: 'token' }, 'unsupported_response_type'],
    ['a plain PKCE method', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
  ])('%s redirects back with an error', async (_label, override, error) => {
    const url = authorizeUrl(server, {
      responseType: 'code',
      clientId: tenant.clientId,
      redirectUri: tenant.redirectUri,
      scope: 'surveys:read',
      state: 'q',
      ...override,
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(tenant.redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('q');
  });

  it('a wrong password shows the sign-in page again with 401', async () => {
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' });
    const page = await (await browser.request(url)).text();
    const res = await browser.postForm(url, { csrf: hiddenField(page, 'csrf'), action: 'signin', email: tenant.email, password: 'wrong password' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Wrong e-mail or password');
    expect(browser.cookies.has('oauth_session')).toBe(false);
  });

  it('a consent post without the CSRF token, or from another origin, is refused', async () => {
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' });
    const consent = await signIn(server, browser, url, tenant);
    const csrf = hiddenField(consent.html, 'csrf');
    const missing = await browser.postForm(url, { action: 'consent', decision: 'allow' });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('location')).toBeNull();
    const wrong = await browser.postForm(url, { csrf: 'x'.repeat(43), action: 'consent', decision: 'allow' });
    expect(wrong.status).toBe(403);
    const crossSite = await browser.postForm(url, { csrf, action: 'consent', decision: 'allow' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    // A forged post without the cookies at all (what a cross-site form sends under SameSite=Lax).
    const forged = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, action: 'consent', decision: 'allow' }).toString(),
    });
    expect(forged.status).toBe(403);
    const ok = await browser.postForm(url, { csrf, action: 'consent', decision: 'allow' });
    expect(ok.status).toBe(303);
  });

  it('a user who is not a member of the business cannot consent', async () => {
    const outsider = await createTenant(server);
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' });
    const page = await signIn(server, browser, url, outsider);
    expect(page.status).toBe(403);
    expect(page.html).toContain('is not a member');
    const res = await browser.postForm(url, { csrf: hiddenField(page.html, 'csrf'), action: 'consent', decision: 'allow' });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });

  it('sets protective headers on the pages', async () => {
    const res = await fetch(authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' }));
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('oauth_csrf='))!;
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect(await res.text()).toMatch(/name="viewport"/);
  });
});
