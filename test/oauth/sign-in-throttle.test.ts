import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { Browser, authorizeUrl, hiddenField } from './oauth-helpers.js';

let server: TestServer;
useTestServer((s) => (server = s));

async function attempt(tenant: Tenant, password: string, email = tenant.email) {
  const browser = new Browser();
  const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' });
  const page = await (await browser.request(url)).text();
  const res = await browser.postForm(url, { csrf: hiddenField(page, 'csrf'), action: 'signin', email, password });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), html: await res.text(), signedIn: browser.cookies.has('oauth_session') };
}

describe('sign-in throttling', () => {
  it('refuses an account for 15 minutes at the address that sent 5 wrong passwords, even the right one, with 429 and Retry-After', async () => {
    const tenant = await createTenant(server);
    for (let i = 0; i < 5; i++) expect((await attempt(tenant, `wrong ${i}`)).status).toBe(401);
    const locked = await attempt(tenant, 'correct horse battery staple');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(14 * 60);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(15 * 60);
    expect(locked.html).toContain('Too many failed attempts. Try again in 15 minutes.');
    expect(locked.signedIn).toBe(false);
    // The e-mail is matched case-insensitively, as at sign-in.
    expect((await attempt(tenant, 'correct horse battery staple', tenant.email.toUpperCase())).status).toBe(429);
  });

  it('a successful sign-in clears the count of the account', async () => {
    const tenant = await createTenant(server);
    for (let i = 0; i < 4; i++) expect((await attempt(tenant, `wrong ${i}`)).status).toBe(401);
    expect((await attempt(tenant, tenant.password)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await attempt(tenant, `wrong again ${i}`)).status).toBe(401);
    expect((await attempt(tenant, tenant.password)).status).toBe(303);
  });

  it('other accounts are not locked by one account being guessed', async () => {
    const victim = await createTenant(server);
    const other = await createTenant(server);
    for (let i = 0; i < 6; i++) await attempt(victim, `wrong ${i}`);
    expect((await attempt(other, other.password)).status).toBe(303);
  });

  it('one client address guessing many accounts is stopped after 50 failures', async () => {
    const tenant = await createTenant(server);
    const rows = await server.orm.em.fork().getConnection().execute(`select failures from sign_in_throttle where key = 'ip:127.0.0.1'`);
    const already = Number(rows[0]?.failures ?? 0);
    for (let i = already; i < 50; i++) await attempt(tenant, 'x', `nobody-${i}@example.com`);
    const blocked = await attempt(tenant, tenant.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
  });
});
