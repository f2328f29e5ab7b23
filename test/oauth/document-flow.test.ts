import { AuthorizationCode } from '../../src/modules/oauth/authorization-code.entity.js';
import { hashSecret } from '../../src/shared/secrets.js';
import { useTenantServer, type Tenant } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import { Browser, hiddenField, pkcePair, postForm, postJson, signIn } from './oauth-helpers.js';

/**
 * Issue 47: the interface document's authorization-code flow (section 4.2) works as written, by default: no PKCE, no
 * redirect URI at the token endpoint, camelCase JSON. What a client does send is checked. OAuth 2.1's strictness
 * (PKCE, and the redirect URI again at the token endpoint) holds for public clients, for a credential that opts in
 * (requirePkce) and, under OAUTH_REQUIRE_PKCE=all, for every client.
 */
const expectInvalidGrant = (res: { status: number; body: any }, about: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(about) });
};

/** The authorization request exactly as section 4.2 lists it, plus whatever `extra` adds (PKCE). */
function documentUrl(server: TestServer, tenant: Tenant, extra: Record<string, string> = {}) {
  const query = new URLSearchParams({
    responseType: 'code',
    clientId: tenant.clientId,
    redirectUri: tenant.redirectUri,
    scope: 'surveys:read,submissions:read',
    state: 'st-42',
    ...extra,
  });
  return `${server.url}/oauth/authorize?${query}`;
}

/** Signs in on the page, allows, and returns where the browser is sent. */
async function allow(server: TestServer, tenant: Tenant, url: string): Promise<URL> {
  const browser = new Browser();
  const consent = await signIn(server, browser, url, tenant);
  expect(consent.status).toBe(200);
  const res = await browser.postForm(url, { csrf: hiddenField(consent.html, 'csrf'), action: 'consent', decision: 'allow' });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

/** The first answer to the authorization request, not followed. */
async function firstAnswer(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

const secretOf = (tenant: Tenant) => ({ clientId: tenant.clientId, clientSecret: tenant.clientSecret });

async function setRequirePkce(server: TestServer, tenant: Tenant, requirePkce: boolean) {
  const res = await server.graphql(
    'mutation($b: ID!, $id: ID!, $on: Boolean!) { updateCredential(business: $b, id: $id, input: {requirePkce: $on}) { id requirePkce } }',
    { b: tenant.businessId, id: tenant.credentialId, on: requirePkce },
    tenant.headers,
  );
  expect(res.body).toEqual({ data: { updateCredential: { id: tenant.credentialId, requirePkce } } });
}

describe('by default (OAUTH_REQUIRE_PKCE=public)', () => {
  const fx = useTenantServer();

  it('section 4.2 as written: a code, a token, /oauth/me, a refresh, and a replayed code refused (its tokens revoked)', async () => {
    const back = await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant));
    expect(`${back.origin}${back.pathname}`).toBe(fx.tenant.redirectUri);
    expect(back.searchParams.get('state')).toBe('st-42');
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^ac_/);

    const exchange = { ...secretOf(fx.tenant), grantType: 'authorization_code', code };
    const token = await postJson(fx.server, '/oauth/token', exchange);
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      id: expect.stringMatching(/^tk_/),
      object: 'token',
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^rt_/),
      tokenType: 'Bearer',
      scope: ['surveys:read', 'submissions:read'],
      credential: fx.tenant.credentialId,
      user: fx.tenant.userId,
      issuedAt: expect.any(Number),
      expiresAt: expect.any(Number),
    });

    const me = await fetch(`${fx.server.url}/oauth/me`, { headers: { authorization: `Bearer ${token.body.accessToken}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).data).toMatchObject({ id: fx.tenant.userId, object: 'user', email: fx.tenant.email });

    const refreshed = await postJson(fx.server, '/oauth/token', { ...secretOf(fx.tenant), grantType: 'refresh_token', refreshToken: token.body.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshToken).not.toBe(token.body.refreshToken);

    expectInvalidGrant(await postJson(fx.server, '/oauth/token', exchange), /already used/);
    const after = await fetch(`${fx.server.url}/oauth/me`, { headers: { authorization: `Bearer ${refreshed.body.accessToken}` } });
    expect(after.status).toBe(401);
  });

  it('checks what a confidential client does send: a different redirect URI, a verifier without a challenge, a wrong verifier', async () => {
    const plain = (await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant))).searchParams.get('code')!;
    const base = { ...secretOf(fx.tenant), grantType: 'authorization_code', code: plain };
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...base, redirectUri: 'http://localhost:8765/other' }), /redirect_uri does not match/);
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...base, codeVerifier: pkcePair().verifier }), /no code challenge/);
    // Refusals do not spend the code; the redirect URI sent right is accepted.
    expect((await postJson(fx.server, '/oauth/token', { ...base, redirectUri: fx.tenant.redirectUri })).status).toBe(200);

    const { verifier, challenge } = pkcePair();
    const withPkce = (
      await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant, { codeChallenge: challenge, codeChallengeMethod: 'S256' }))
    ).searchParams.get('code')!;
    const pkceBase = { ...secretOf(fx.tenant), grantType: 'authorization_code', code: withPkce };
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', pkceBase), /code_verifier is required/);
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...pkceBase, codeVerifier: pkcePair().verifier }), /does not match the code challenge/);
    // With PKCE the redirect URI may still be left out, as the document's request has none.
    expect((await postJson(fx.server, '/oauth/token', { ...pkceBase, codeVerifier: verifier })).status).toBe(200);
  });

  it('RFC 6749 form bodies take the same rules: no redirect_uri needed, a wrong one refused', async () => {
    const code = (await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant))).searchParams.get('code')!;
    const fields = { grant_type: 'authorization_code', code, client_id: fx.tenant.clientId, client_secret: fx.tenant.clientSecret };
    expectInvalidGrant(await postForm(fx.server, '/oauth/token', { ...fields, redirect_uri: 'http://localhost:8765/other' }), /redirect_uri/);
    const ok = await postForm(fx.server, '/oauth/token', fields);
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toBe('surveys:read submissions:read');
  });

  it("a wrong password on a partner's sign-in page shows the form again with the error", async () => {
    const url = documentUrl(fx.server, fx.tenant);
    const browser = new Browser();
    const page = await (await browser.request(url)).text();
    const res = await browser.postForm(url, { csrf: hiddenField(page, 'csrf'), action: 'signin', email: fx.tenant.email, password: 'not the password' });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain('Wrong e-mail or password.');
    expect(html).toContain('name="password"');
  });

  it('the public client (the portal) still needs PKCE', async () => {
    const query = new URLSearchParams({
      responseType: 'code',
      clientId: 'portal',
      redirectUri: `${fx.server.config.publicUrl}/portal/callback`,
      scope: 'surveys:read',
      state: 'st',
    });
    const answer = await firstAnswer(`${fx.server.url}/oauth/authorize?${query}`);
    expect(answer.status).toBe(303);
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('a credential that opts in (requirePkce: true)', () => {
  const fx = useTenantServer({}, (ready) => setRequirePkce(ready.server, ready.tenant, true));

  it("refuses the document's flow without PKCE at the authorization endpoint, back to its redirect URI", async () => {
    const answer = await firstAnswer(documentUrl(fx.server, fx.tenant));
    expect(answer.status).toBe(303);
    const back = new URL(answer.location!);
    expect(`${back.origin}${back.pathname}`).toBe(fx.tenant.redirectUri);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/code_challenge.*PKCE/);
    expect(back.searchParams.get('state')).toBe('st-42');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('needs the redirect URI at the token endpoint, and refuses a code it got before opting in', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (
      await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant, { codeChallenge: challenge, codeChallengeMethod: 'S256' }))
    ).searchParams.get('code')!;
    const base = { ...secretOf(fx.tenant), grantType: 'authorization_code', code, codeVerifier: verifier };
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', base), /redirect_uri \(redirectUri\) is required/);
    expect((await postJson(fx.server, '/oauth/token', { ...base, redirectUri: fx.tenant.redirectUri })).status).toBe(200);

    const older = 'ac_issued-before-the-credential-opted-in-0123456789';
    const em = fx.server.orm.em.fork();
    em.create(AuthorizationCode, {
      codeHash: hashSecret(older),
      credential: fx.tenant.credentialId,
      business: fx.tenant.businessId,
      user: fx.tenant.userId,
      redirectUri: fx.tenant.redirectUri,
      scopes: ['surveys:read'],
      codeChallenge: null,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    expectInvalidGrant(
      await postJson(fx.server, '/oauth/token', { ...secretOf(fx.tenant), grantType: 'authorization_code', code: older, redirectUri: fx.tenant.redirectUri }),
      /must use PKCE/,
    );
  });

  it("opting out again lets the document's flow through", async () => {
    await setRequirePkce(fx.server, fx.tenant, false);
    const code = (await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant))).searchParams.get('code')!;
    expect((await postJson(fx.server, '/oauth/token', { ...secretOf(fx.tenant), grantType: 'authorization_code', code })).status).toBe(200);
  });
});

describe("with OAUTH_REQUIRE_PKCE=all (the operator's switch)", () => {
  const fx = useTenantServer({ server: { env: { OAUTH_REQUIRE_PKCE: 'all' } } });

  it("every client is held to PKCE and the redirect URI, its credential's requirePkce false or not", async () => {
    const answer = await firstAnswer(documentUrl(fx.server, fx.tenant));
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request');

    const { verifier, challenge } = pkcePair();
    const code = (
      await allow(fx.server, fx.tenant, documentUrl(fx.server, fx.tenant, { codeChallenge: challenge, codeChallengeMethod: 'S256' }))
    ).searchParams.get('code')!;
    const base = { ...secretOf(fx.tenant), grantType: 'authorization_code', code, codeVerifier: verifier };
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', base), /redirect_uri/);
    expect((await postJson(fx.server, '/oauth/token', { ...base, redirectUri: fx.tenant.redirectUri })).status).toBe(200);
  });
});
