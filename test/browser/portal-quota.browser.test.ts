import type { Page } from 'playwright-core';
import { API_LIMIT_ON, type TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { addMember, OWNER_NAV, signInToPortal, usePortal, type Person } from '../helpers/portal.js';

/**
 * Issue 49, item 1: the portal's traffic is people's, each with a quota of their own (the service's default API
 * limit, on here), and no screen costs more than a person's quota. Two members of one business open every screen
 * three times in a row, side by side: no screen ever says it was refused.
 */
let server: TestServer;
let tenant: Tenant;
let manager: Person;

const { newPage, api } = usePortal({ business: 'Cafe Busy', env: API_LIMIT_ON }, async (portal) => {
  ({ server, tenant } = portal);
  manager = await addMember(portal.server, tenant, 'manager', { email: 'manager@cafe-busy.example', name: 'Mona Manager' });
  // A survey, so that the Feedback screen reads one survey's steps and feedback as it does for a real business.
  await api('mutation($b: ID!) { createSurvey(business: $b, input: {name: "Dinner"}) { id } }');
});

const signedIn = async (who: Person) => signInToPortal((await newPage()).page, server, who, '/portal/');

/** Opens each screen by its link, waits until nothing is loading, and returns what any alert on it says. */
async function walk(page: Page): Promise<string[]> {
  const refusals: string[] = [];
  for (const label of OWNER_NAV) {
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
