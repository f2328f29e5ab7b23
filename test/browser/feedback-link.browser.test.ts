import type { TestServer } from '../helpers/server.js';
import { guestSurvey, type GuestSurveyFixture } from '../helpers/guest.js';
import type { MailBox } from '../helpers/smtp.js';
import { rest } from '../rest/rest.helpers.js';
import { rows } from '../ingest/ingest-helpers.js';
import { axeViolations, fitsWidth, PHONE, screenshot, useServerBrowserAndMail } from '../helpers/browser.js';

/**
 * The feedback request's e-mail as a guest meets it, in Debian's Chromium on a phone: its short link opens the survey
 * page with the order filled in, and its unsubscribe link's page and button work under the pages' CSP.
 */
let server: TestServer;
let mail: MailBox;
let fx: GuestSurveyFixture;

const newPage = useServerBrowserAndMail(
  async (started) => {
    ({ server, mail } = started);
    fx = await guestSurvey(server);
    const flow = await rest(server, 'POST', `/v2/businesses/${fx.business}/feedback-flows`, {
      tenant: fx.tenant,
      body: { name: 'After every order', survey: fx.survey, channels: ['email'], delayMinutes: 0, quietHours: null },
    });
    expect(flow.status).toBe(201);
  },
  { workers: true },
);

async function mailTo(address: string) {
  for (let i = 0; i < 200; i++) {
    const found = mail.mails.find((m) => m.to.includes(address));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no e-mail to ${address}`);
}

it('opens the survey with the order from the e-mail link, and unsubscribes with the button', async () => {
  const email = `guest-${Date.now()}@example.com`;
  const order = (
    await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { externalOrderId: 'LINK-1', total: 10, currency: 'PKR', customerEmail: email },
    })
  ).createOrder.id as string;
  const body = (await mailTo(email)).body;
  const link = new URL(/https?:\/\/\S+\/r\/[A-Za-z0-9_-]+(?=\s|$)/.exec(body)![0]);
  const unsubscribe = new URL(/https?:\/\/\S+\/r\/[A-Za-z0-9_-]+\/unsubscribe/.exec(body)![0]);

  const { page } = await newPage(PHONE);
  await page.goto(`${server.url}${link.pathname}`);
  expect(new URL(page.url()).pathname).toBe(fx.path);
  expect(new URL(page.url()).searchParams.get('custom.customOrderId')).toBe('LINK-1');
  expect(await page.locator('form').count()).toBeGreaterThan(0);
  expect(await axeViolations(page)).toEqual([]);
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, 'feedback-link-survey');
  expect((await rows(server, 'select status from feedback_request where order_id = ?', [order])).map((r) => r.status)).toEqual(['opened']);

  await page.goto(`${server.url}${unsubscribe.pathname}`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Stop feedback requests');
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'feedback-link-unsubscribe');
  await page.getByRole('button', { name: 'Unsubscribe' }).press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Unsubscribed' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'feedback-link-unsubscribed');
  expect(await rows(server, 'select channel from feedback_suppression where business_id = ?', [fx.business])).toEqual([{ channel: 'email' }]);
});
