import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { rows } from '../ingest/ingest-helpers.js';
import { offsiteRequests, signInOnPage, checkPortalScreen } from '../helpers/browser.js';
import { usePortal } from '../helpers/portal.js';

/**
 * Issue 48, item 2: the owner sees on the Overview what the business may still send today on each channel, and what
 * waits for the reset; with the defaults of a new business (50 SMS, 200 e-mails a day), SMS spent with 4 held.
 */
let server: TestServer;
let tenant: Tenant;

const { newPage } = usePortal({ business: 'Cafe Budget' }, async (portal) => {
  ({ server, tenant } = portal);
  // Today's tallies as the workers and the API would have left them.
  await rows(
    server,
    `insert into sending_tally (business_id, day, budget, recipient, used, held) values (?, (now() at time zone 'utc')::date, 'sms', '', 50, 4), (?, (now() at time zone 'utc')::date, 'email', '', 12, 0)`,
    [tenant.businessId, tenant.businessId],
  );
});

const checkScreen = (page: Page, name: string) => checkPortalScreen(page, `sending-${name}`);

describe("the Overview's sending budget", () => {
  it('shows each channel with what is left, the messages held until the reset, and the rule, on a desktop and a phone', async () => {
    const { page } = await newPage();
    const offsite = offsiteRequests(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/portal`);
    await page.waitForURL(/\/oauth\/authorize/);
    await signInOnPage(page, tenant);
    const tile = page.getByTestId('sending-today');
    await tile.locator('dl').waitFor();
    expect(await tile.getByRole('heading', { level: 2 }).textContent()).toBe('Messages today');
    const figure = (name: string) => tile.locator('dl > div').filter({ hasText: name }).textContent();
    await expect(figure('E-mail')).resolves.toBe('E-mail188 left 12 of 200 sent');
    await expect(figure('SMS')).resolves.toMatch(/^SMS0 left 50 of 50 sent; 4 automated messages held until .+/);
    const rule = await tile.locator('p').textContent();
    expect(rule).toContain('at most 5 a day to one guest on each channel');
    expect(rule).toContain("A new business's budget: it grows on ");
    expect(await tile.getAttribute('class')).toBe('sending spent');
    await checkScreen(page, 'overview');
    expect(offsite).toEqual([]);
  }, 120_000);
});
