import type { TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import type { MailBox } from '../helpers/smtp.js';
import { rest } from '../rest/rest.helpers.js';
import { rows } from '../ingest/ingest-helpers.js';
import { consentLink } from '../cases/case.fixtures.js';
import { axeViolations, fitsWidth, PHONE, screenshot, tabTo, untilNextPage, useServerBrowserAndMail } from '../helpers/browser.js';

/**
 * Issue 48: an outside alert recipient's confirmation page as they meet it, in Debian's Chromium on a phone and by
 * keyboard: it names the business and asks; its buttons agree, and stop, under the guest pages' CSP; in Urdu too.
 */
let server: TestServer;
let mail: MailBox;

const newPage = useServerBrowserAndMail(
  async (started) => {
    ({ server, mail } = started);
  },
  { workers: true },
);

it('asks, confirms and stops by keyboard on a phone, each page accessible', async () => {
  const tenant = await createTenant(server, { businessName: 'Browser Bistro' });
  const to = `chef-${Date.now()}@example.com`;
  const made = await rest(server, 'POST', `/v2/businesses/${tenant.businessId}/alert-rules`, {
    tenant,
    body: { name: 'Low', when: { maxRating: 2 }, notify: [{ channel: 'email', to }] },
  });
  expect(made.status).toBe(201);
  const link = consentLink(server, (await mail.waitFor((m) => m.to.includes(to), 30_000)).body).replace(server.config.publicUrl, server.url);

  const { page } = await newPage(PHONE);
  await page.goto(link);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Alerts from Browser Bistro?');
  expect(await page.locator('main').textContent()).toContain(to);
  expect(await axeViolations(page)).toEqual([]);
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, 'alert-consent-ask');

  await tabTo(page, 'button:not(.secondary)');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, send me the alerts');
  await untilNextPage(page, () => page.keyboard.press('Enter'));
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You get alerts from Browser Bistro');
  expect(await axeViolations(page)).toEqual([]);
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, 'alert-consent-confirmed');
  expect(await rows(server, 'select status from alert_recipient where business_id = ?', [tenant.businessId])).toEqual([{ status: 'confirmed' }]);

  await tabTo(page, 'button');
  await untilNextPage(page, () => page.keyboard.press('Enter'));
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No messages from Browser Bistro');
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'alert-consent-declined');
  expect(await rows(server, 'select status from alert_recipient where business_id = ?', [tenant.businessId])).toEqual([{ status: 'declined' }]);

  await page.goto(`${link}?lang=ur`);
  expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Browser Bistro');
  expect(await axeViolations(page)).toEqual([]);
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, 'alert-consent-declined-ur');
});
