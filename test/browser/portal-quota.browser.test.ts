import type { Browser, Page } from 'playwright-core';
import { API_LIMIT_ON, startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, TEST_PASSWORD, type Tenant } from '../helpers/auth.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { Membership } from '../../src/modules/user/membership.entity.js';
import { freePort } from '../helpers/ports.js';
import { buildPortal, launchBrowser, pagesChecked, signInOnPage } from '../helpers/browser.js';

/**
 * Issue 49, item 1: the portal's traffic is people's, each with a quota of their own (the service's default API
 * limit, on here), and no screen costs more than a person's quota. Two members of one business open every screen
 * three times in a row, side by side: no screen ever says it was refused.
 */
let server: TestServer;
let browser: Browser;
let tenant: Tenant;
let manager: { email: string; password: string };

const NAV = [
  'Overview',
  'Inbox',
  'Surveys',
  'Feedback',
  'Themes',
  'Orders',
  'Integrations',
  'Webhooks',
  'API credentials',
  'Feedback flows',
  'Saved replies',
  'Alert rules',
  'Locations',
  'Members',
  'Brand',
  'Theme settings',
];

beforeAll(async () => {
  const port = await freePort();
  const env = { ...API_LIMIT_ON, PUBLIC_URL: `http://127.0.0.1:${port}` };
  [server, browser] = await Promise.all([startTestServer({ env, port }), launchBrowser(), buildPortal()]);
  tenant = await createTenant(server, { businessName: 'Cafe Busy' });
  const em = server.orm.em.fork();
  const user = await createUser(em, { email: 'manager@cafe-busy.example', password: TEST_PASSWORD, name: 'Mona Manager' });
  em.create(Membership, { user: user.id, business: tenant.businessId, role: 'manager' });
  await em.flush();
  manager = { email: user.email, password: TEST_PASSWORD };
  // A survey, so that the Feedback screen reads one survey's steps and feedback as it does for a real business.
  const created = await server.graphql(
    'mutation($b: ID!) { createSurvey(business: $b, input: {name: "Dinner"}) { id } }',
    { b: tenant.businessId },
    tenant.headers,
  );
  expect(created.body.errors).toBeUndefined();
}, 120_000);
const newPage = pagesChecked(() => browser);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signedIn(who: { email: string; password: string }): Promise<Page> {
  const { page } = await newPage();
  await page.goto(`${server.url}/portal/`);
  await signInOnPage(page, who);
  await page.getByRole('navigation', { name: 'Portal' }).waitFor();
  return page;
}

/** Opens each screen by its link, waits until nothing is loading, and returns what any alert on it says. */
async function walk(page: Page): Promise<string[]> {
  const refusals: string[] = [];
  for (const label of NAV) {
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: label, exact: true }).click();
    await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.startsWith('Loading'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    for (const text of await page.getByRole('alert').allTextContents()) if (/too many/i.test(text)) refusals.push(`${label}: ${text}`);
  }
  return refusals;
}

it('two members open every screen three times in a row, side by side, and are never refused', async () => {
  const [owner, other] = await Promise.all([signedIn(tenant), signedIn(manager)]);
  for (let round = 0; round < 3; round++) {
    const [a, b] = await Promise.all([walk(owner), walk(other)]);
    expect({ round, owner: a, manager: b }).toEqual({ round, owner: [], manager: [] });
  }
});
