import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { createBusiness } from '../../src/modules/member/member.service.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { Browser, hiddenField, pkcePair } from './oauth-helpers.js';

/**
 * The business portal's built-in client (`portal`, created by a migration): public (no secret, PKCE required), its
 * one redirect address derived from PUBLIC_URL, no business of its own: the user picks one of theirs.
 */
let server: TestServer;
let tenant: Tenant;
useTestServer(async (s) => {
  server = s;
  tenant = await createTenant(s, { businessName: 'First Cafe' });
});

const redirectUri = () => `${server.config.publicUrl}/portal/callback`;

function authorizeUrl(params: Record<string, string>) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'portal',
    redirect_uri: redirectUri(),
    scope: SCOPES.join(' '),
    state: 's1',
    ...params,
  });
  return `${server.url}/oauth/authorize?${query}`;
}

/** Signs in on the page of `url`; returns the answer to following the sign-in's redirect (a redirect or a page). */
async function signInAt(browser: Browser, url: string) {
  const page = await browser.request(url);
  const html = await page.text();
  const posted = await browser.postForm(url, { csrf: hiddenField(html, 'csrf'), action: 'signin', email: tenant.email, password: tenant.password });
  expect(posted.status).toBe(303);
  return browser.request(new URL(posted.headers.get('location')!, server.url).toString());
}

const token = (body: Record<string, string>) =>
  fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: 'portal', ...body }),
  });

describe('the portal as a public first-party OAuth client', () => {
  it('signs a one-business user straight in: a code for that business, exchanged with the PKCE verifier and no secret', async () => {
    const { verifier, challenge } = pkcePair();
    const answer = await signInAt(new Browser(), authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(redirectUri());
    expect(back.searchParams.get('state')).toBe('s1');

    const wrong = await token({
      grantType: 'authorization_code',
      code: back.searchParams.get('code')!,
      codeVerifier: pkcePair().verifier,
      redirectUri: redirectUri(),
    });
    expect(wrong.status).toBe(400);
    const { verifier: v2, challenge: c2 } = pkcePair();
    const again = new URL((await signInAt(new Browser(), authorizeUrl({ code_challenge: c2, code_challenge_method: 'S256' }))).headers.get('location')!);
    const res = await token({ grantType: 'authorization_code', code: again.searchParams.get('code')!, codeVerifier: v2, redirectUri: redirectUri() });
    expect(res.status).toBe(200);
    const issued = await res.json();
    expect(issued.scope).toEqual([...SCOPES]);
    const me = await server.graphql('{ business(id: "' + tenant.businessId + '") { name } }', {}, { authorization: `Bearer ${issued.accessToken}` });
    expect(me.body.data.business.name).toBe('First Cafe');

    // The refresh token rotates, with no secret either; revoking it ends the family.
    const refreshed = await token({ grantType: 'refresh_token', refreshToken: issued.refreshToken });
    expect(refreshed.status).toBe(200);
    const { refreshToken } = await refreshed.json();
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'portal', token: refreshToken }),
    });
    expect(revoked.status).toBe(200);
    expect((await token({ grantType: 'refresh_token', refreshToken })).status).toBe(400);
    void verifier;
  });

  it('refuses what a public client may not do: no PKCE, another redirect, a secret, client credentials', async () => {
    const noPkce = await new Browser().request(authorizeUrl({}));
    expect(noPkce.status).toBe(303);
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const elsewhere = await new Browser().request(
      authorizeUrl({ redirect_uri: 'https://evil.example.com/portal/callback', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }),
    );
    expect(elsewhere.status).toBe(400);

    const withSecret = await token({ grantType: 'client_credentials', clientSecret: 'cs_guess' });
    expect(withSecret.status).toBe(401);
    const noSecret = await token({ grantType: 'client_credentials' });
    expect(noSecret.status).toBe(400);
    expect((await noSecret.json()).error).toBe('unauthorized_client');

    // It never shows among a business's credentials.
    const list = await server.graphql(`query($b: ID!) { credentials(business: $b) { data { clientId } } }`, { b: tenant.businessId }, tenant.headers);
    expect(list.body.data.credentials.data.map((c: { clientId: string }) => c.clientId)).not.toContain('portal');
  });

  it('lets a member of several businesses choose one, or names it in the request; switching asks again', async () => {
    const { business: second } = await createBusiness(server.orm.em.fork(), { name: 'Second Cafe', owner: tenant.userId });
    const browser = new Browser();
    const { challenge } = pkcePair();
    const url = authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' });
    const chooser = await signInAt(browser, url);
    expect(chooser.status).toBe(200);
    const html = await chooser.text();
    expect(html).toContain('First Cafe');
    expect(html).toContain('Second Cafe');
    const chosen = await browser.postForm(url, { csrf: hiddenField(html, 'csrf'), action: 'business', business: second.id });
    expect(chosen.status).toBe(303);
    const code = new URL(chosen.headers.get('location')!).searchParams.get('code');
    expect(code).toMatch(/^ac_/);

    // Not a member: the chooser again, nothing issued.
    const stranger = await createTenant(server, { businessName: 'Not Yours' });
    const refused = await browser.postForm(url, { csrf: hiddenField(html, 'csrf'), action: 'business', business: stranger.businessId });
    expect(refused.status).toBe(200);

    // Named in the request (the portal returning to the business that was open): no question asked.
    const named = await browser.request(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256', business: second.id }));
    expect(named.status).toBe(303);
    // prompt=login asks for the password again, even with a session.
    const login = await browser.request(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256', prompt: 'login' }));
    expect(await login.text()).toContain('Sign in to continue to Business portal');
  });
});
