import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { axeViolations, fitsWidth, PHONE, screenshot, useServerAndBrowser } from '../helpers/browser.js';
import { TEST_PKCE, pkcePair } from '../oauth/oauth-helpers.js';

/**
 * The authorization code flow as a person does it, in Debian's Chromium: the browser sends Origin and Sec-Fetch-*
 * headers and enforces the pages' CSP, cookies and referrer policy, which no HTTP client in the other tests does.
 */
let server: TestServer;
let callback: Receiver;
let tenant: Tenant;

const newPage = useServerAndBrowser(async (started) => {
  server = started.server;
  callback = await startReceiver();
  tenant = await createTenant(server, { businessName: 'Cafe Browser', redirectUri: `${callback.url}/callback` });
});
afterAll(() => callback?.close());

/** With a PKCE challenge (recommended): TEST_PKCE's unless `params` names one. */
function authorizeUrl(params: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    responseType: 'code',
    clientId: tenant.clientId,
    redirectUri: tenant.redirectUri,
    scope: 'surveys:read orders:read',
    state: `st-${Math.random().toString(36).slice(2)}`,
    ...('codeChallenge' in params ? {} : { codeChallenge: TEST_PKCE.challenge, codeChallengeMethod: 'S256' }),
    ...params,
  });
  return `${server.url}/oauth/authorize?${query}`;
}

/** Types the e-mail and password into the labelled fields and presses the button; resolves with the POST's status. */
async function signIn(page: Page, password = tenant.password): Promise<number> {
  await page.getByLabel('E-mail').fill(tenant.email);
  await page.getByLabel('Password').fill(password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/oauth/authorize')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.waitForLoadState();
  return response.status();
}

describe('sign-in pages in a real browser', () => {
  it('runs the whole authorization code flow with PKCE: sign in, consent, redirect with code and state, exchange', async () => {
    const { page } = await newPage();
    const { verifier, challenge } = pkcePair();
    const url = authorizeUrl({ codeChallenge: challenge, codeChallengeMethod: 'S256', state: 'state-pkce' });
    await page.goto(url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to continue to Test App');
    await screenshot(page, 'oauth-1-sign-in');

    expect(await signIn(page)).toBe(303);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Test App wants to access Cafe Browser');
    expect(await page.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('surveys:read'), expect.stringContaining('orders:read')]);
    await screenshot(page, 'oauth-2-consent');

    await page.getByRole('button', { name: 'Allow' }).click();
    const landed = await callback.waitFor((r) => r.url.searchParams.get('state') === 'state-pkce');
    await page.waitForURL(`${callback.url}/callback?**`);
    expect(landed.url.pathname).toBe('/callback');
    expect(landed.url.searchParams.get('iss')).toBe(server.config.publicUrl);
    const code = landed.url.searchParams.get('code')!;
    expect(code).toMatch(/^ac_/);
    // same-origin referrer policy: the client's page learns nothing of the authorization request's query.
    expect(landed.headers.referer).toBeUndefined();

    const exchanged = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grantType: 'authorization_code',
        clientId: tenant.clientId,
        clientSecret: tenant.clientSecret,
        code,
        codeVerifier: verifier,
        redirectUri: tenant.redirectUri,
      }),
    });
    expect(exchanged.status).toBe(200);
    const token = (await exchanged.json()) as { accessToken: string; scope: string[] };
    expect(token.scope).toEqual(['surveys:read', 'orders:read']);
    const api = await server.graphql('{ surveys(business: "' + tenant.businessId + '") { total } }', {}, { authorization: `Bearer ${token.accessToken}` });
    expect(api.body.data).toEqual({ surveys: { total: 0 } });
  });

  it("runs the interface document's flow as written (no PKCE): a wrong password shown on the page, then sign in, consent, exchange", async () => {
    const { page } = await newPage();
    const url = new URL(`${server.url}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      responseType: 'code',
      clientId: tenant.clientId,
      redirectUri: tenant.redirectUri,
      scope: 'surveys:read,orders:read',
      state: 'state-doc',
    })) {
      url.searchParams.set(name, value);
    }
    await page.goto(url.toString());
    expect(await signIn(page, 'not the password')).toBe(401);
    expect(await page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    await screenshot(page, 'oauth-document-flow-wrong-password');
    expect(await signIn(page)).toBe(303);
    await page.getByRole('button', { name: 'Allow' }).click();
    const landed = await callback.waitFor((r) => r.url.searchParams.get('state') === 'state-doc');
    const exchanged = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: tenant.clientId,
        clientSecret: tenant.clientSecret,
        grantType: 'authorization_code',
        code: landed.url.searchParams.get('code'),
      }),
    });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { scope: string[] }).scope).toEqual(['surveys:read', 'orders:read']);
  });

  it('shows "Wrong e-mail or password" with the form again (401) for a wrong password', async () => {
    const { page } = await newPage();
    await page.goto(authorizeUrl());
    expect(await signIn(page, 'not the password')).toBe(401);
    expect(await page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    expect(await page.getByLabel('E-mail').inputValue()).toBe(tenant.email);
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await screenshot(page, 'oauth-wrong-password');
    // The form still works: the right password now goes through.
    expect(await signIn(page)).toBe(303);
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(1);
  });

  it('signs out from the consent page and asks to sign in again', async () => {
    const { page, context } = await newPage();
    await page.goto(authorizeUrl());
    await signIn(page);
    expect((await context.cookies()).some((c) => c.name === 'oauth_session')).toBe(true);
    await page.getByRole('button', { name: 'Not you? Sign out' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to continue to Test App');
    expect((await context.cookies()).some((c) => c.name === 'oauth_session')).toBe(false);
  });

  it('answers an expired sign-in form (its CSRF cookie gone) with the friendly page, not a sign-in', async () => {
    const { page, context } = await newPage();
    await page.goto(authorizeUrl());
    await context.clearCookies();
    expect(await signIn(page)).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Please try again');
    expect(await page.getByRole('alert').textContent()).toContain('This form has expired or did not come from this site');
    expect((await context.cookies()).some((c) => c.name === 'oauth_session')).toBe(false);
    await screenshot(page, 'oauth-expired-form');
  });

  it('refuses a form another site posts to /oauth/authorize, even with a valid CSRF token and cookie', async () => {
    const { page, context } = await newPage();
    const url = authorizeUrl();
    await page.goto(url);
    const csrf = await page.locator('input[name=csrf]').inputValue();
    // Another origin on the same host (another port): a same-site page, so the SameSite=Lax cookies go along and the
    // planted token matches them. Only the browser's word on where the form came from can refuse it.
    const attacker = await startReceiver(() => ({
      body: `<!doctype html><html lang="en"><title>Win a prize</title><body>
<form id="f" method="post" action="${url}">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="action" value="signin">
<input type="hidden" name="email" value="${tenant.email}"><input type="hidden" name="password" value="${tenant.password}">
</form><script>document.getElementById('f').submit()</script></body></html>`,
    }));
    try {
      const [posted] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(`${server.url}/oauth/authorize`)),
        page.goto(`${attacker.url}/prize`),
      ]);
      await page.waitForLoadState();
      expect((await posted.request().allHeaders())['sec-fetch-site']).toBe('same-site');
      expect(posted.status()).toBe(403);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Please try again');
      expect((await context.cookies()).some((c) => c.name === 'oauth_session')).toBe(false);
    } finally {
      await attacker.close();
    }
  });

  it('signs in and allows with the keyboard alone', async () => {
    const { page } = await newPage();
    await page.goto(authorizeUrl({ state: 'state-keys' }));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.keyboard.type(tenant.email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    await page.keyboard.type(tenant.password);
    await Promise.all([page.waitForURL(/\/oauth\/authorize/), page.keyboard.press('Enter')]);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    // Deny comes first in the tab order, Allow second.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow');
    await page.keyboard.press('Enter');
    const landed = await callback.waitFor((r) => r.url.searchParams.get('state') === 'state-keys');
    expect(landed.url.searchParams.get('code')).toMatch(/^ac_/);
  });

  it('has sign-in, consent and error pages that axe finds nothing wrong with, readable on a phone', async () => {
    const { page } = await newPage(PHONE);
    const check = async (name: string) => {
      expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
      expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `oauth-phone-${name}`);
    };
    await page.goto(authorizeUrl());
    await check('sign-in');
    await signIn(page, 'wrong password');
    await check('sign-in-error');
    await signIn(page);
    await check('consent');
    await page.goto(`${server.url}/oauth/authorize?clientId=unknown`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This sign-in link cannot be used');
    await check('error');
  });
});
