import type { TestServer } from '../helpers/server.js';
import { axeViolations, screenshot, useServerAndBrowser } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';

/** The home page and GraphiQL (/graphiql) from npm packages: they must work with nothing reachable but this service. */
let server: TestServer;
const newPage = useServerAndBrowser(
  (started) => (server = started.server),
  // PUBLIC_URL names the real address: /portal sends a browser that came by another name to that one.
  async () => {
    const port = await freePort();
    return { env: { PUBLIC_URL: `http://127.0.0.1:${port}` }, port };
  },
);

/** Every request the page makes, that is not to the service under test. */
function elsewhere(page: import('playwright-core').Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) urls.push(r.url());
  });
  return urls;
}

describe('/ in a real browser', () => {
  it('lists the doors, each link answering, and passes axe', async () => {
    const p = await newPage();
    const away = elsewhere(p.page);
    const res = await p.page.goto(`${server.url}/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    const links = await p.page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(links).toEqual(expect.arrayContaining(['/graphql', '/graphiql', '/docs', '/openapi.json', '/.well-known/oauth-authorization-server', '/healthz']));
    for (const href of links) {
      const answer = await fetch(`${server.url}${href}`, { headers: { accept: 'text/html' } });
      expect([href, answer.status]).toEqual([href, 200]);
    }
    expect(await p.page.locator('main').textContent()).toMatch(/needs internet/);
    // Owners first: the portal and sign-up lead, the developers' doors follow.
    expect(await p.page.getByRole('link').first().textContent()).toBe('Sign in to the business portal');
    expect(await p.page.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe('/signup');
    expect(await p.page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['For developers']);
    await screenshot(p.page, 'home');
    expect(await axeViolations(p.page)).toEqual([]);
    expect(away).toEqual([]);
  });
});

describe('/graphiql in a real browser', () => {
  it('loads from this service only, runs { health { status } } and shows the answer', async () => {
    const p = await newPage();
    const away = elsewhere(p.page);
    const res = await p.page.goto(`${server.url}/graphiql`);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    await p.page.locator('.graphiql-container').waitFor();
    // Replace the default query with the one to run, as a person would type it.
    const editor = p.page.locator('.graphiql-query-editor .CodeMirror').first();
    await editor.click();
    await p.page.keyboard.press('ControlOrMeta+A');
    await p.page.keyboard.type('{ health { status } }');
    await p.page.locator('button.graphiql-execute-button').click();
    await p.page.locator('.graphiql-response').getByText('"ok"').waitFor();
    expect(await p.page.locator('.graphiql-response').textContent()).toMatch(/"health"[\s\S]*"status"[\s\S]*"ok"/);
    await screenshot(p.page, 'graphiql');
    // Every control has a name (the page names CodeMirror's textareas). What remains is GraphiQL's own palette,
    // named so that anything new is caught, as /docs does for Swagger UI.
    const violations = await axeViolations(p.page);
    expect(violations.filter((v) => v.impact === 'critical')).toEqual([]);
    const known = ['color-contrast'];
    expect(violations.map((v) => v.id).filter((id) => !known.includes(id))).toEqual([]);
    expect(away).toEqual([]);
  });

  it('serves its assets with long cache headers under versioned URLs, and 404s any other file', async () => {
    const html = await (await fetch(`${server.url}/graphiql`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).toHaveLength(4);
    for (const path of assets) {
      const answer = await fetch(`${server.url}${path}`);
      expect([path, answer.status, answer.headers.get('cache-control')]).toEqual([path, 200, 'public, max-age=31536000, immutable']);
    }
    expect((await fetch(`${server.url}/graphiql/assets/0.0.0/graphiql.min.js`)).status).toBe(404);
    expect((await fetch(`${server.url}${assets[0].replace(/[^/]+$/, 'package.json')}`)).status).toBe(404);
  });
});
