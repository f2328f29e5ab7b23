import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { Browser, authorizeUrl, hiddenField } from './oauth-helpers.js';

/**
 * Which sign-in posts count, by the headers a browser sends (the browser tests drive the real thing; this table
 * pins each rule of csrfValid, including the deliberate answer to `Origin: null`).
 */
let server: TestServer;
let tenant: Tenant;
useTestServer(async (s) => {
  server = s;
  tenant = await createTenant(s);
});

const cases: Array<[string, (own: string) => Record<string, string>, number]> = [
  ['no Origin, no Sec-Fetch-Site (not a browser: the token decides)', () => ({}), 303],
  ['our own Origin', (own) => ({ origin: own }), 303],
  ['Sec-Fetch-Site same-origin', (own) => ({ origin: own, 'sec-fetch-site': 'same-origin' }), 303],
  ['Sec-Fetch-Site same-origin with Origin null (a privacy setting)', () => ({ origin: 'null', 'sec-fetch-site': 'same-origin' }), 303],
  ['Origin null alone (a sandboxed frame: nothing says where it came from)', () => ({ origin: 'null' }), 403],
  ['another Origin', () => ({ origin: 'https://evil.example' }), 403],
  ['Sec-Fetch-Site same-site (a sibling port or subdomain)', (own) => ({ origin: own, 'sec-fetch-site': 'same-site' }), 403],
  ['Sec-Fetch-Site cross-site', () => ({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), 403],
];

describe('sign-in form posts by where the browser says they came from', () => {
  it.each(cases)('%s', async (_name, headers, status) => {
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read' });
    const page = await (await browser.request(url)).text();
    const res = await browser.postForm(
      url,
      { csrf: hiddenField(page, 'csrf'), action: 'signin', email: tenant.email, password: tenant.password },
      headers(server.url),
    );
    expect(res.status).toBe(status);
    expect(browser.cookies.has('oauth_session')).toBe(status === 303);
  });
});
