import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import { startMailBox, type MailBox } from '../helpers/smtp.js';
import {
  axeViolations,
  axeViolationsOfCopy,
  buildPortal,
  fitsWidth,
  offsiteRequests,
  PHONE,
  screenshot,
  signInOnPage,
  untilNextPage,
  useServerAndBrowser,
} from '../helpers/browser.js';
import { choosePasswordInto } from '../helpers/portal.js';

/**
 * Issue 37 items 1 and 3 (issue 48 items 3 and 6) in Debian's Chromium, with the real SMTP server the service sends
 * through: a restaurant signs up on its own (sign-up → the e-mailed link, where the password is chosen → the portal,
 * signed in → a first survey), and an owner invites from the Members screen (the invitee signs up through the link and
 * arrives as a member with the role; a revoked link says so; an address with an account stays pending until its owner
 * accepts by signing in).
 * The account pages ship no script: they are also walked with JavaScript off.
 */

let server: TestServer;
let mailbox: MailBox;
let owner: Tenant;

beforeAll(async () => {
  [mailbox] = await Promise.all([startMailBox(), buildPortal()]);
}, 120_000);
const newPage = useServerAndBrowser(
  async (started) => {
    server = started.server;
    owner = await createTenant(server, { businessName: 'Cafe Team' });
  },
  async () => {
    const port = await freePort();
    return { env: { SMTP_URL: mailbox.url, PUBLIC_URL: `http://127.0.0.1:${port}` }, workers: true, port };
  },
);
afterAll(() => mailbox?.close());

const PASSWORD = 'tangerine orbit 42 lamp';
const newEmail = (who: string) => `${who}-${randomBytes(5).toString('hex')}@example.com`;
const h1 = (page: Page) => page.getByRole('heading', { level: 1 });

/** The link in the newest mail to `email` whose subject contains `subject` (PUBLIC_URL is this server's address). */
async function linkTo(email: string, subject: string): Promise<string> {
  const mail = await mailbox.waitFor((m) => m.to.includes(email) && m.subject.includes(subject), 15_000);
  const link = /(http\S+token=\S+)/.exec(mail.body)![1].replace(/[.)]$/, '');
  expect(link.startsWith(`${server.url}/oauth/`)).toBe(true);
  return link;
}

/** axe finds nothing on the page as it stands (or on a copy of it, for a page with JavaScript off), and it fits a phone. */
async function checkPage(page: Page, name: string, jsOff = false) {
  const violations = jsOff ? await axeViolationsOfCopy(page) : await axeViolations(page);
  expect({ page: name, violations }).toEqual({ page: name, violations: [] });
  expect({ page: name, fits: await fitsWidth(page) }).toEqual({ page: name, fits: true });
  await screenshot(page, `accounts-${name}`);
}

async function fillSignUp(page: Page, p: { email: string; businessName?: string }) {
  await page.getByLabel('Your name').fill('Ada Owner');
  await page.getByLabel('E-mail').fill(p.email);
  await page.getByLabel('Business name').fill(p.businessName ?? 'Cafe Ada');
  await page.getByLabel('Time zone').selectOption('Europe/Rome');
}

/** Waits until the portal's screen has loaded its data (no "Loading …" status left). */
async function loaded(page: Page) {
  await page.waitForFunction(() => !Array.from(document.querySelectorAll('[role=status]')).some((s) => s.textContent?.startsWith('Loading')));
}

async function open(page: Page, label: string) {
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: label, exact: true }).click();
  await loaded(page);
}

describe('sign-up in a real browser', () => {
  it('signs up from the sign-in page, confirms the e-mailed link, lands in the portal signed in and creates a first survey', async () => {
    const { page } = await newPage();
    const offsite = offsiteRequests(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    const email = newEmail('ada');

    // Signed out, the portal sends to sign-in, which offers "Create an account".
    await page.goto(`${server.url}/portal/`);
    await page.getByLabel('Password').waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`${server.url}/oauth/signup**`);
    await expect(h1(page).textContent()).resolves.toBe('Create an account');
    await checkPage(page, 'signup');

    await fillSignUp(page, { email });
    await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
    await expect(h1(page).textContent()).resolves.toBe('Check your e-mail');
    await expect(page.getByRole('status').textContent()).resolves.toContain(email);
    await checkPage(page, 'check-your-email');

    // The e-mail's link shows a form (a mail scanner fetching the link does not use it up), where the owner of the
    // address chooses the password: the sign-up form asked for none.
    await page.goto(await linkTo(email, 'Confirm'));
    await expect(h1(page).textContent()).resolves.toBe('Confirm your e-mail address');
    await expect(page.getByLabel('Your name').inputValue()).resolves.toBe('Ada Owner');
    await checkPage(page, 'verify');
    // The portal, signed in without another question, on the new business.
    await choosePasswordInto(page, PASSWORD, 'Confirm and continue', 'Cafe Ada');
    expect(new URL(page.url()).pathname.startsWith('/portal')).toBe(true);
    await open(page, 'Members');
    await page.getByRole('row').filter({ hasText: email }).filter({ hasText: 'you' }).waitFor();
    await expect(page.getByRole('combobox', { name: `Role of ${email}` }).inputValue()).resolves.toBe('owner');

    // A first survey.
    await open(page, 'Surveys');
    await page.getByRole('link', { name: 'New survey' }).click();
    await page.getByRole('form', { name: 'Survey settings' }).getByLabel('Name').fill('First visit');
    await page.getByRole('button', { name: 'Create survey' }).click();
    await page.waitForURL(/\/portal\/surveys\/sur_/);
    await open(page, 'Surveys');
    await page.getByRole('link', { name: 'First visit' }).waitFor();
    await screenshot(page, 'accounts-first-survey');
    expect(offsite).toEqual([]);
  }, 90_000);

  it('works with JavaScript off: the error summaries, check your e-mail and the confirmation, axe clean on a phone', async () => {
    const { page, context } = await newPage({ ...PHONE, javaScriptEnabled: false });
    const email = newEmail('nojs');
    await page.goto(`${server.url}/signup`);
    await expect(h1(page).textContent()).resolves.toBe('Create an account');
    await checkPage(page, 'signup-nojs', true);

    // A field left blank: the form again, with a summary linking to the field, and the other values kept.
    await fillSignUp(page, { email, businessName: ' ' });
    await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
    await expect(page.getByRole('alert').textContent()).resolves.toContain('There is a problem');
    await expect(page.getByRole('alert').getByRole('link').getAttribute('href')).resolves.toBe('#businessName');
    await expect(page.getByLabel('E-mail').inputValue()).resolves.toBe(email);
    await checkPage(page, 'signup-error-nojs', true);

    await page.getByLabel('Business name').fill('Cafe Ada');
    await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
    await expect(h1(page).textContent()).resolves.toBe('Check your e-mail');
    await checkPage(page, 'check-your-email-nojs', true);

    await page.goto(await linkTo(email, 'Confirm'));
    await expect(h1(page).textContent()).resolves.toBe('Confirm your e-mail address');
    await checkPage(page, 'verify-nojs', true);
    // A weak password is refused beside its field; the link still works for the next try.
    await page.getByLabel('Choose a password').fill('password123');
    await untilNextPage(page, () => page.getByRole('button', { name: 'Confirm and continue' }).click());
    await expect(page.getByRole('alert').getByRole('link').getAttribute('href')).resolves.toBe('#password');
    await checkPage(page, 'verify-error-nojs', true);
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await untilNextPage(page, () => page.getByRole('button', { name: 'Confirm and continue' }).click());
    expect(page.url()).toBe(`${server.url}/portal/`);
    expect((await context.cookies()).some((c) => c.name === 'oauth_session')).toBe(true);
  }, 60_000);
});

describe('password reset in a real browser', () => {
  it('"Forgot your password?" on the sign-in page, the e-mailed link, a new password; the old one stops working (on a phone)', async () => {
    const { page } = await newPage({ ...PHONE });
    const user = await createTenant(server, { businessName: 'Cafe Reset' });
    await page.goto(`${server.url}/portal/`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await expect(h1(page).textContent()).resolves.toBe('Reset your password');
    await checkPage(page, 'forgot');
    await page.getByLabel('E-mail').fill(user.email);
    await untilNextPage(page, () => page.getByRole('button', { name: 'Send the link' }).click());
    await expect(h1(page).textContent()).resolves.toBe('Check your e-mail');

    await page.goto(await linkTo(user.email, 'Reset your password'));
    await expect(h1(page).textContent()).resolves.toBe('Choose a new password');
    await checkPage(page, 'new-password');
    // A weak one is refused beside the field; a good one is saved.
    await page.getByLabel('New password').fill('1234567890');
    await untilNextPage(page, () => page.getByRole('button', { name: 'Save the new password' }).click());
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/password/i);
    await checkPage(page, 'new-password-error');
    await page.getByLabel('New password').fill(PASSWORD);
    await untilNextPage(page, () => page.getByRole('button', { name: 'Save the new password' }).click());
    await expect(h1(page).textContent()).resolves.toBe('Password changed');
    await checkPage(page, 'password-changed');

    // The sign-in page takes the new password and no longer the old one.
    const fresh = await newPage({ ...PHONE });
    await fresh.page.goto(`${server.url}/portal/`);
    await untilNextPage(fresh.page, () => signInOnPage(fresh.page, { email: user.email, password: user.password }));
    await expect(fresh.page.getByRole('alert').textContent()).resolves.toMatch(/\S/);
    await signInOnPage(fresh.page, { email: user.email, password: PASSWORD });
    await fresh.page
      .getByTestId('business-name')
      .filter({ hasText: /^Cafe Reset$/ })
      .waitFor();
  }, 90_000);
});

describe('invitations from the Members screen', () => {
  it('invites, revokes without a reload, and the invitee signs up through the link and arrives as a member with the role', async () => {
    const { page } = await newPage();
    const offsite = offsiteRequests(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/portal/members`);
    await signInOnPage(page, owner);
    await page.waitForURL(`${server.url}/portal/members`);
    await loaded(page);
    await page.getByText('No invitation is waiting for an answer.').waitFor();

    const form = page.getByRole('form', { name: 'Invite a member' });
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    const invite = async (email: string, role: string) => {
      await form.getByLabel('E-mail').fill(email);
      await form.getByLabel('Role').selectOption(role);
      await form.getByRole('button', { name: 'Invite' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Invitation sent to ${email} as ${role}` })
        .waitFor();
      await pending.getByRole('row').filter({ hasText: email }).waitFor();
    };

    // Two invitations; each listed with its role and when its link stops working.
    const grace = newEmail('grace');
    const sam = newEmail('sam');
    await invite(grace, 'manager');
    expect(await form.getByLabel('E-mail').inputValue()).toBe('');
    await invite(sam, 'staff');
    const graceRow = pending.getByRole('row').filter({ hasText: grace });
    expect(await graceRow.getByRole('cell').nth(1).textContent()).toBe('manager');
    expect(await graceRow.getByRole('cell').nth(3).textContent()).toMatch(/\d{4}/);
    // Inviting the same address again says why, beside the field.
    await form.getByLabel('E-mail').fill(grace);
    await form.getByRole('button', { name: 'Invite' }).click();
    await form.locator('.field-error').filter({ hasText: 'already invited' }).waitFor();
    await form.getByLabel('E-mail').fill('');
    await checkPage(page, 'members-invitations');

    // Revoke Sam's, just created, without a reload: the confirmation says what stops working.
    const samLink = await linkTo(sam, 'invited');
    await page.getByRole('button', { name: `Revoke the invitation of ${sam}…` }).click();
    const dialog = page.getByRole('alertdialog');
    await expect(dialog.textContent()).resolves.toContain('The link e-mailed to them stops working');
    await checkPage(page, 'members-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke it' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `The invitation of ${sam} was revoked` })
      .waitFor();
    await pending.getByRole('row').filter({ hasText: sam }).waitFor({ state: 'detached' });
    expect(await pending.getByRole('row').filter({ hasText: grace }).count()).toBe(1);

    // Sam's link now answers a clear page.
    const samPage = (await newPage({ ...PHONE })).page;
    const revoked = await samPage.goto(samLink);
    expect(revoked!.status()).toBe(410);
    await expect(h1(samPage).textContent()).resolves.toBe('This link cannot be used');
    await expect(samPage.getByText('This invitation was withdrawn by the business').count()).resolves.toBe(1);
    await checkPage(samPage, 'invitation-revoked');

    // Grace opens her link in a browser of her own, signs up through it and lands in the portal as a manager.
    const gracePage = (await newPage()).page;
    const graceOffsite = offsiteRequests(gracePage);
    await gracePage.setViewportSize({ width: 1280, height: 900 });
    await gracePage.goto(await linkTo(grace, 'invited'));
    await expect(h1(gracePage).textContent()).resolves.toBe('Join Cafe Team');
    await expect(gracePage.getByText('as manager', { exact: false }).count()).resolves.toBeGreaterThan(0);
    await checkPage(gracePage, 'invitation');
    await gracePage.getByLabel('Your name').fill('Grace Manager');
    await choosePasswordInto(gracePage, PASSWORD, 'Create account and join', 'Cafe Team');
    await open(gracePage, 'Members');
    await gracePage
      .getByRole('row')
      .filter({ hasText: `Grace Manager (${grace})` })
      .filter({ hasText: 'you' })
      .filter({ hasText: 'manager' })
      .waitFor();
    await gracePage.getByRole('note').filter({ hasText: 'Only owners invite' }).waitFor();
    expect(await gracePage.getByRole('form', { name: 'Invite a member' }).count()).toBe(0);
    expect(graceOffsite).toEqual([]);

    // The owner's screen follows without a reload: the invitation goes, the member appears with the role.
    await pending.getByRole('row').filter({ hasText: grace }).waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByRole('combobox', { name: `Role of ${grace}` }).waitFor({ timeout: 15_000 });
    await expect(page.getByRole('combobox', { name: `Role of ${grace}` }).inputValue()).resolves.toBe('manager');
    await page.getByText('No invitation is waiting for an answer.').waitFor();

    // An address that has an account is invited the same way and stays pending, not a member, until its owner
    // accepts by signing in through the link.
    const kim = await createTenant(server, { businessName: 'Kim Bakery' });
    await invite(kim.email, 'staff');
    expect(await page.getByRole('combobox', { name: `Role of ${kim.email}` }).count()).toBe(0);
    const kimPage = (await newPage()).page;
    await kimPage.goto(await linkTo(kim.email, 'invited'));
    await expect(h1(kimPage).textContent()).resolves.toBe('Join Cafe Team');
    await checkPage(kimPage, 'invitation-sign-in');
    await kimPage.getByLabel('Password').fill(kim.password);
    await untilNextPage(kimPage, () => kimPage.getByRole('button', { name: 'Sign in and join' }).click());
    await pending.getByRole('row').filter({ hasText: kim.email }).waitFor({ state: 'detached', timeout: 15_000 });
    await expect(page.getByRole('combobox', { name: `Role of ${kim.email}` }).inputValue()).resolves.toBe('staff');
    expect(offsite).toEqual([]);
  }, 150_000);
});
