import { AuthorizationCode } from '../../src/modules/oauth/authorization-code.entity.js';
import { hashSecret } from '../../src/shared/secrets.js';
import { useTenantServer, type Tenant } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import { authorizeCode, authorizeUrl, pkcePair, postForm, postJson } from '../oauth/oauth-helpers.js';

/**
 * Issue 33, item 7: the redirect URI sent at authorize must be sent again at the token endpoint (RFC 6749 4.1.3, JSON
 * bodies too), and every authorization-code client uses PKCE (OAuth 2.1), confidential ones included, unless the
 * operator lets existing confidential clients go without it for a while (OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE).
 */
const expectInvalidGrant = (res: { status: number; body: any }, about: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(about) });
};

/** Authorizes with PKCE (sent explicitly, whatever the helper adds) and returns the code and its verifier. */
async function codeWithPkce(server: TestServer, tenant: Tenant) {
  const { verifier, challenge } = pkcePair();
  const callback = await authorizeCode(server, tenant, { code_challenge: challenge, code_challenge_method: 'S256' });
  return { code: callback.searchParams.get('code')!, verifier };
}

describe('by default', () => {
  const fx = useTenantServer();
  const secret = () => ({ clientId: fx.tenant.clientId, clientSecret: fx.tenant.clientSecret });

  it('a JSON token request must carry the redirect URI the authorization request had (invalid_grant without it)', async () => {
    const { code, verifier } = await codeWithPkce(fx.server, fx.tenant);
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...secret(), grantType: 'authorization_code', code, codeVerifier: verifier }), /redirect_uri/);
    // The refusal did not spend the code: sent as RFC 6749 says, it works.
    const ok = await postJson(fx.server, '/oauth/token', { ...secret(), grantType: 'authorization_code', code, codeVerifier: verifier, redirectUri: fx.tenant.redirectUri });
    expect(ok.status).toBe(200);
  });

  it('a wrong redirect URI is invalid_grant in JSON and form bodies alike, and so is a missing one in a form', async () => {
    const json = await codeWithPkce(fx.server, fx.tenant);
    expectInvalidGrant(
      await postJson(fx.server, '/oauth/token', { ...secret(), grantType: 'authorization_code', code: json.code, codeVerifier: json.verifier, redirectUri: 'http://localhost:8765/other' }),
      /redirect_uri/,
    );
    const form = await codeWithPkce(fx.server, fx.tenant);
    const fields = { grant_type: 'authorization_code', code: form.code, code_verifier: form.verifier, client_id: fx.tenant.clientId, client_secret: fx.tenant.clientSecret };
    expectInvalidGrant(await postForm(fx.server, '/oauth/token', fields), /redirect_uri/);
    expect((await postForm(fx.server, '/oauth/token', { ...fields, redirect_uri: fx.tenant.redirectUri })).status).toBe(200);
  });

  it('a confidential client without PKCE is refused at the authorization endpoint, back to its redirect URI', async () => {
    const url = authorizeUrl(fx.server, { responseType: 'code', clientId: fx.tenant.clientId, redirectUri: fx.tenant.redirectUri, scope: 'surveys:read', state: 'st', code_challenge: '' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(fx.tenant.redirectUri);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/code_challenge.*PKCE/);
    expect(back.searchParams.get('state')).toBe('st');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a code issued without a challenge (before the upgrade) is refused at the token endpoint', async () => {
    const code = 'ac_issued-before-pkce-was-required-0123456789';
    const em = fx.server.orm.em.fork();
    em.create(AuthorizationCode, {
      codeHash: hashSecret(code),
      credential: fx.tenant.credentialId,
      business: fx.tenant.businessId,
      user: fx.tenant.userId,
      redirectUri: fx.tenant.redirectUri,
      scopes: ['surveys:read'],
      codeChallenge: null,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...secret(), grantType: 'authorization_code', code, redirectUri: fx.tenant.redirectUri }), /PKCE/);
  });
});

describe('with OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE=true (the migration switch)', () => {
  const fx = useTenantServer({ server: { env: { OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE: 'true' } } });

  it('a confidential client may still go without PKCE, the redirect URI still required', async () => {
    const callback = await authorizeCode(fx.server, fx.tenant, { code_challenge: '' });
    const code = callback.searchParams.get('code')!;
    expect(code).toMatch(/^ac_/);
    const base = { clientId: fx.tenant.clientId, clientSecret: fx.tenant.clientSecret, grantType: 'authorization_code', code };
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', base), /redirect_uri/);
    // A verifier for a code that had no challenge is a confused client: refused.
    expectInvalidGrant(await postJson(fx.server, '/oauth/token', { ...base, redirectUri: fx.tenant.redirectUri, codeVerifier: pkcePair().verifier }), /no code challenge/);
    const ok = await postJson(fx.server, '/oauth/token', { ...base, redirectUri: fx.tenant.redirectUri });
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toEqual(['surveys:read', 'credentials:read']);
  });

  it('the public client (the portal) still needs PKCE', async () => {
    const url = authorizeUrl(fx.server, { responseType: 'code', clientId: 'portal', redirectUri: `${fx.server.config.publicUrl}/portal/callback`, scope: 'surveys:read', state: 'st', code_challenge: '' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});
