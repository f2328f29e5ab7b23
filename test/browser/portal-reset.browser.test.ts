import fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import type { MailBox } from '../helpers/smtp.js';
import { axeViolations, fitsWidth, PHONE, portalLoaded, screenshot, signInOnPage, untilNextPage } from '../helpers/browser.js';
import { desktopSignedInAt, h1, usePortal } from '../helpers/portal.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createCredential } from '../../src/modules/oauth/credential.service.js';
import { Membership } from '../../src/modules/user/membership.entity.js';

/**
 * Issue 48 items 7 and 8 in Chromium: the portal's CSV defuses a guest's formula as the REST CSV does; a tab whose
 * token a password reset revoked goes to sign in; the Credentials screen shows who each credential acts for and
 * rotates a secret in one place.
 */
let server: TestServer;
let mail: MailBox;

const { newPage, api } = usePortal({ mail: true, workers: true }, (portal) => ({ server, mail } = portal));

async function portalAt(tenant: Tenant, path: string) {
  const p = await newPage();
  await desktopSignedInAt(p.page, server, tenant, path);
  return p;
}

async function resetPassword(page: Page, tenant: Tenant, password: string) {
  const tab = await page.context().newPage();
  await tab.goto(`${server.url}/oauth/password/forgot`);
  await tab.getByLabel('E-mail').fill(tenant.email);
  await untilNextPage(tab, () => tab.getByRole('button', { name: 'Send the link' }).click());
  const sent = await mail.waitFor((m) => m.to.includes(tenant.email) && m.subject.includes('Reset'), 10_000);
  const link = /(http\S+token=\S+)/.exec(sent.body)![1];
  await tab.goto(link);
  await tab.getByLabel('New password').fill(password);
  await untilNextPage(tab, () => tab.getByRole('button', { name: 'Save the new password' }).click());
  expect(await h1(tab).textContent()).toBe('Password changed');
  await tab.close();
  return sent;
}

describe('the portal after a password reset, and its CSV', () => {
  it("downloads the feedback CSV with a guest's formula defused, by the REST CSV's own function", async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Formula' });
    const survey = (await api(`mutation($b: ID!) { createSurvey(business: $b, input: { name: "Your visit", status: active }) { id } }`, {}, tenant))
      .createSurvey.id;
    const step = (
      await api(
        `mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: { type: text, content: { title: "Anything else?" } }) { id } }`,
        { s: survey },
        tenant,
      )
    ).createSurveyStep.id;
    const comments = ["=cmd|' /C calc'!A0", '+1+2', '@SUM(A1:A9)', '-2+3', 'Lovely, "really"'];
    for (const value of comments) {
      await api(
        `mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`,
        { s: survey, i: { answers: [{ step, value }] } },
        tenant,
      );
    }

    const { page } = await portalAt(tenant, `/portal/feedback?survey=${survey}`);
    await page.getByRole('row').filter({ hasText: 'Lovely' }).waitFor();
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const lines = fs
      .readFileSync((await csv.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Feedback id,Received (UTC),Status,Channel,Location,Order,Anything else?');
    // The comment is the 7th cell (no location, no order): each formula starts with a quote, read as text.
    const written = lines.slice(1).map((line) => line.split(',').slice(6).join(','));
    expect(written.sort()).toEqual(["'+1+2", "'-2+3", "'=cmd|' /C calc'!A0", "'@SUM(A1:A9)", '"Lovely, ""really"""'].sort());
  });

  it('sends a tab whose token a password reset revoked to sign in, and back to its screen after', async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Revoked' });
    const { page } = await portalAt(tenant, '/portal/credentials');
    await resetPassword(page, tenant, 'a brand new sentence 9');

    // The next thing the person does in the old tab: the sign-in page, not "The access token has been revoked".
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.waitForURL(/\/oauth\/authorize/);
    expect(await h1(page).textContent()).toBe('Sign in to continue to Business portal');
    await signInOnPage(page, { email: tenant.email, password: 'a brand new sentence 9' });
    await page.waitForURL((url) => url.pathname === '/portal/webhooks');
    await h1(page).waitFor();
    await portalLoaded(page);
    expect(await h1(page).textContent()).toBe('Webhooks');
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('sends a tab left open on a live screen to sign in by itself once the reset revoked its token', async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Idle' });
    const { page } = await portalAt(tenant, '/portal/members');
    await resetPassword(page, tenant, 'another new sentence 7');
    // Nothing pressed: the live subscription is closed for the revoked token (within RECHECK_MS), and the tab goes.
    await page.waitForURL(/\/oauth\/authorize/, { timeout: 20_000 });
    expect(await h1(page).textContent()).toBe('Sign in to continue to Business portal');
  });

  it("leads from the reset mail to the credentials the person created, marked, and rotates one's secret there", async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Rotate' });
    const em = server.orm.em.fork();
    const other = await createUser(em, { email: `other-${tenant.userId}@example.com`, password: 'another long password 1', name: 'Other' });
    em.create(Membership, { user: other.id, business: tenant.businessId, role: 'manager' });
    await em.flush();
    await createCredential(em, { business: tenant.businessId, name: 'Their dashboard', validRedirectUris: [tenant.redirectUri], createdBy: other.id });

    const { page } = await newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const sent = await resetPassword(page, tenant, 'a brand new sentence 9');
    expect(sent.body).toContain('- Test App (Cafe Rotate)');
    await page.goto(/(http\S+\/portal\/credentials)/.exec(sent.body)![1]);
    await signInOnPage(page, { email: tenant.email, password: 'a brand new sentence 9' });
    await page.waitForURL((url) => url.pathname === '/portal/credentials');
    await portalLoaded(page);

    expect(await page.getByTestId('yours').textContent()).toContain('You created one of them');
    const card = (name: string) => page.locator('ul.credentials > li').filter({ hasText: name });
    expect(await card('Test App').textContent()).toContain('Created by you');
    expect(await card('Their dashboard').textContent()).not.toContain('Created by you');

    await page.getByRole('button', { name: 'Rotate secret of Test App…' }).click();
    await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('stops working at once');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Rotate it' }).click();
    const secret = (await page.getByRole('region', { name: 'New client secret of Test App' }).locator('[data-secret]').textContent())!;
    expect(secret).toMatch(/^cs_/);
    for (const viewport of [{ width: 1280, height: 900 }, PHONE.viewport]) {
      await page.setViewportSize(viewport);
      expect(await axeViolations(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
    }
    await screenshot(page, 'portal-credentials-rotated');

    // The app's old secret mints nothing more; the one shown does.
    const mint = (clientSecret: string) =>
      fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials', clientId: tenant.clientId, clientSecret }),
      });
    expect((await mint(tenant.clientSecret)).status).toBe(401);
    expect((await mint(secret)).status).toBe(200);
  });
});
