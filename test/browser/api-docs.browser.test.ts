import type { TestServer } from '../helpers/server.js';
import { axeViolations, openPage, screenshot, useServerAndBrowser, type BrowserPage } from '../helpers/browser.js';

/** /docs: Swagger UI served from swagger-ui-dist, which must render the REST API offline (no CDN reachable here). */
let server: TestServer;
let p: BrowserPage;
useServerAndBrowser(async (started) => {
  server = started.server;
  p = await openPage(started.browser);
});

describe('/docs in a real browser', () => {
  it('renders every REST route from /openapi.json with nothing loaded from elsewhere', async () => {
    const elsewhere: string[] = [];
    p.page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) elsewhere.push(r.url());
    });
    await p.page.goto(`${server.url}/docs`);
    await p.page.locator('.opblock').first().waitFor();
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).filter((k) => k !== 'parameters').length, 0);
    expect(await p.page.locator('.opblock').count()).toBe(operations);
    expect(await p.page.locator('.info .title').first().textContent()).toContain('Feedback');
    await screenshot(p.page, 'docs');
    expect(elsewhere).toEqual([]);
    expect(p.problems).toEqual([]);
  });

  it('lets a developer open an operation and read its parameters', async () => {
    await p.page.locator('.opblock-summary').first().click();
    await p.page.locator('.opblock.is-open .parameters-container, .opblock.is-open .opblock-description-wrapper').first().waitFor();
    const violations = await axeViolations(p.page);
    // Every control has a name (critical: a screen reader could not use the page). What remains is Swagger UI's own
    // markup and palette (contrast of method badges, buttons inside summaries, scroll boxes, landmarks): named here so
    // that anything new is caught, not fixed by patching a third-party bundle.
    expect(violations.filter((v) => v.impact === 'critical')).toEqual([]);
    const known = [
      'color-contrast',
      'nested-interactive',
      'scrollable-region-focusable',
      'heading-order',
      'landmark-unique',
      'landmark-no-duplicate-main',
      'landmark-main-is-top-level',
    ];
    expect(violations.map((v) => v.id).filter((id) => !known.includes(id))).toEqual([]);
    expect(p.problems).toEqual([]);
  });
});
