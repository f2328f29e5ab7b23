import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { startTestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import { restaurant } from '../cases/case.fixtures.js';
import {
  axeViolations,
  buildPortal,
  checkPortalScreen,
  fitsWidth,
  screenshot,
  signInOnPage,
  untilNextPage,
  useServerAndBrowser,
  openPage,
  PHONE,
} from '../helpers/browser.js';
import { choosePasswordInto } from '../helpers/portal.js';

/**
 * Issue 49 item 5 in Debian's Chromium. With MAIL_OUTBOX=dev a newcomer follows every loop from /portal/dev/outbox:
 * the sign-up's confirmation (its link followed from the page, to the portal, signed in), a feedback request from an
 * order of a flow, an alert from a low rating a rule matches and a text (an outside number's confirmation); the page is axe clean on a desktop and a phone. With
 * no sender at all, the sign-up page says that e-mail cannot be sent and what the operator must set, and answers an
 * unknown and a known address in the same words.
 */

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  await buildPortal();
}, 120_000);
const newPage = useServerAndBrowser(
  async (started) => {
    server = started.server;
    browser = started.browser;
  },
  async () => {
    const port = await freePort();
    return { env: { MAIL_OUTBOX: 'dev', SMTP_URL: undefined, PUBLIC_URL: `http://127.0.0.1:${port}` }, workers: true, port };
  },
);

const PASSWORD = 'tangerine orbit 42 lamp';
const newEmail = (who: string) => `${who}-${randomBytes(5).toString('hex')}@example.com`;
const h1 = (page: Page) => page.getByRole('heading', { level: 1 });

/** The outbox page's message to `to` whose heading matches `title`, waited for (the workers keep it within a second or so). */
async function messageIn(page: Page, to: string, title: RegExp) {
  for (let tries = 0; ; tries++) {
    await page.goto(`${server.url}/portal/dev/outbox`);
    const found = page
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: title }) })
      .filter({ hasText: to });
    if ((await found.count()) > 0) return found.first();
    if (tries > 100) throw new Error(`no message to ${to} titled ${title} in the outbox`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function fillSignUp(page: Page, email: string) {
  await page.getByLabel('Your name').fill('Ada Owner');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Business name').fill('Cafe Ada');
}

describe('the dev outbox (MAIL_OUTBOX=dev)', () => {
  it('keeps the sign-up confirmation; its link, followed from the outbox page, confirms and signs in to the portal', async () => {
    const { page } = await newPage();
    const email = newEmail('ada');
    await page.goto(`${server.url}/oauth/signup`);
    await expect(page.getByText('E-mail cannot be sent').count()).resolves.toBe(0);
    await fillSignUp(page, email);
    await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
    await expect(h1(page).textContent()).resolves.toBe('Check your e-mail');

    const kept = await messageIn(page, email, /^Confirm your e-mail address$/);
    await expect(kept.textContent()).resolves.toMatch(/From\s*Feedback <no-reply@/);
    await expect(h1(page).textContent()).resolves.toBe('Dev outbox');
    await checkPortalScreen(page, 'dev-outbox');
    await untilNextPage(page, () => kept.getByRole('link', { name: /\/oauth\/verify\?token=/ }).click());
    await expect(h1(page).textContent()).resolves.toBe('Confirm your e-mail address');
    await choosePasswordInto(page, PASSWORD, 'Confirm and continue', 'Cafe Ada');
    expect(new URL(page.url()).pathname.startsWith('/portal')).toBe(true);
  }, 90_000);

  it('keeps a feedback request of a flow and an alert of a rule, newest first, their links working; usable on a phone', async () => {
    const r = await restaurant(server, 'Cafe Outbox');
    await r.made('/feedback-flows', { name: 'After every order', survey: r.survey, channels: ['email'], delayMinutes: 0, quietHours: null });
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 4 }, notify: [{ role: 'owner' }, { channel: 'sms', to: '+923001234567' }] });
    const guest = newEmail('guest');
    const order = await r.order({ customerEmail: guest });

    const { page } = await newPage({ ...PHONE });
    const request = await messageIn(page, guest, /Cafe Outbox/);
    await expect(request.textContent()).resolves.toMatch(/From\s*Cafe Outbox <no-reply@/);
    const opened = await r.caseOf(await r.answer({ taste: 1, text: 'Cold', order, location: r.location }));
    const alert = await messageIn(page, r.tenant.email, /^Unhappy guest at Cafe Outbox at Gulberg: Taste 1 of 10$/);
    // Newest first: the alert above the request.
    const headings = await page.getByRole('article').getByRole('heading').allTextContents();
    expect(headings.indexOf('Unhappy guest at Cafe Outbox at Gulberg: Taste 1 of 10')).toBeLessThan(
      headings.findIndex((h) => h.includes('Cafe Outbox') && !h.startsWith('Unhappy')),
    );
    expect({ violations: await axeViolations(page), fits: await fitsWidth(page) }).toEqual({ violations: [], fits: true });
    await screenshot(page, 'dev-outbox-phone');

    // Texts are kept too: the outside number's one confirmation, its link clickable.
    const text = await messageIn(page, '+923001234567', /^Text message to \+923001234567$/);
    await expect(text.textContent()).resolves.toContain('Cafe Outbox');
    await expect(text.getByRole('link', { name: /\/alerts\// }).count()).resolves.toBe(1);
    await messageIn(page, r.tenant.email, /^Unhappy guest at Cafe Outbox at Gulberg/);
    const caseLink = alert.getByRole('link', { name: new RegExp(`/portal/cases/${opened.id}$`) });
    await expect(caseLink.count()).resolves.toBe(1);
    // The guest's link opens the survey of the order.
    const again = await messageIn(page, guest, /Cafe Outbox/);
    await untilNextPage(page, () =>
      again
        .getByRole('link', { name: /\/r\/[A-Za-z0-9_-]+$/ })
        .first()
        .click(),
    );
    expect(new URL(page.url()).pathname).toMatch(/^\/(r|survey)\//);
    await expect(page.getByRole('heading', { level: 1 }).count()).resolves.toBeGreaterThan(0);
  }, 90_000);
});

describe('no e-mail sender', () => {
  let bare: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    bare = await startTestServer({ env: { MAIL_OUTBOX: undefined, SMTP_URL: undefined, PUBLIC_URL: `http://127.0.0.1:${port}` }, port });
  });
  afterAll(() => bare?.stop(), 60_000);

  it('the sign-up page says e-mail cannot be sent and what to set, and answers an unknown and a known address alike', async () => {
    const known = (await createTenant(bare)).email;
    const answers: string[] = [];
    for (const email of [newEmail('unknown'), known]) {
      const { page, context } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
      try {
        await page.goto(`${bare.url}/oauth/signup`);
        await page.getByRole('heading', { name: 'E-mail cannot be sent from this installation' }).waitFor();
        await expect(page.getByText(/must set SMTP_URL/).count()).resolves.toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        await fillSignUp(page, email);
        await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
        await expect(h1(page).textContent()).resolves.toBe('E-mail cannot be sent yet');
        expect(await axeViolations(page)).toEqual([]);
        await page.setViewportSize(PHONE.viewport);
        expect(await fitsWidth(page)).toBe(true);
        await screenshot(page, `no-sender-signed-up-${answers.length}`);
        answers.push(((await page.locator('main').textContent()) ?? '').replaceAll(email, 'ADDRESS'));
      } finally {
        await context.close();
      }
    }
    expect(answers[0]).toContain('SMTP_URL');
    expect(answers[1]).toBe(answers[0]);
  }, 60_000);

  it('the Members screen says an invitation waits for a sender, and keeps it', async () => {
    const owner = await createTenant(bare);
    const { page, context } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${bare.url}/portal/members`);
      await signInOnPage(page, owner);
      const form = page.getByRole('form', { name: 'Invite a member' });
      await form.getByRole('note').filter({ hasText: 'This installation cannot send e-mail yet: an invitation is kept' }).waitFor();
      const email = newEmail('cook');
      await form.getByLabel('E-mail').fill(email);
      await form.getByRole('button', { name: 'Invite' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Invitation for ${email} as staff kept: it is e-mailed once this installation can send e-mail` })
        .waitFor();
      await page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: email }).waitFor();
      await checkPortalScreen(page, 'members-no-sender');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the outbox page, off, says how to turn it on', async () => {
    const res = await fetch(`${bare.url}/portal/dev/outbox`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('NODE_ENV=development MAIL_OUTBOX=dev npm start');
  });
});
