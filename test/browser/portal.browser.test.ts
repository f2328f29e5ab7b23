import fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { TEST_PASSWORD, type Tenant } from '../helpers/auth.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { Credential } from '../../src/modules/oauth/credential.entity.js';
import { createBusiness, createMember } from '../../src/modules/member/member.service.js';
import type { Receiver } from '../helpers/receiver.js';
import { axeViolations, screenshot, signInOnPage, untilNextPage, checkPortalScreen } from '../helpers/browser.js';
import { h1, OWNER_NAV, usePortal } from '../helpers/portal.js';

/**
 * The business portal as a new manager uses it, in Debian's Chromium: signing in through the OAuth pages as the
 * built-in public client, then each screen that exists today, against a real server, database and webhook receiver.
 * One browser and one page for the journey (a tab keeps its session in sessionStorage, as a person's would).
 */
let server: TestServer;
let receiver: Receiver;
let tenant: Tenant;

const { newPage, portalPage } = usePortal(
  { business: 'Cafe Portal', receiver: true, workers: true, env: { WEBHOOK_RETRY_SCHEDULE: '1s,1s' } },
  (portal) => ({ server, receiver, tenant } = portal),
);

const signIn = (page: Page) => signInOnPage(page, tenant);

async function open(page: Page, label: string) {
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: label, exact: true }).click();
  await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.startsWith('Loading'));
}

const checkScreen = checkPortalScreen;

/** The parts of the curl command the Integrations screen shows, sent as that command would send them. */
function runCurl(command: string) {
  const url = /curl -s (\S+)/.exec(command)![1];
  const headers = Object.fromEntries([...command.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1], m[2]]));
  const body = /-d '([^']*)'/.exec(command)![1];
  return fetch(url, { method: 'POST', headers, body });
}

describe('the business portal in a real browser', () => {
  it('walks a new manager through every screen: sign-in, surveys, feedback, the overview, orders, integrations, webhooks, credentials, flows and members', async () => {
    const { page, offsite } = await portalPage();
    await page.setViewportSize({ width: 1280, height: 900 });

    // Signed out, a bookmark goes straight to sign-in, then back to where it pointed.
    await page.goto(`${server.url}/portal/surveys`);
    await page.waitForURL(/\/oauth\/authorize/);
    expect(await h1(page).textContent()).toBe('Sign in to continue to Business portal');
    await signIn(page);
    await page.waitForURL(`${server.url}/portal/surveys`);
    await expect(h1(page).textContent()).resolves.toBe('Surveys');
    // The header shows the business's name once its query answers (a placeholder until then).
    await page
      .getByTestId('business-name')
      .filter({ hasText: /^Cafe Portal$/ })
      .waitFor();
    const nav = page.getByRole('navigation', { name: 'Portal' }).getByRole('link');
    expect(await nav.allTextContents()).toEqual(OWNER_NAV);
    expect(await nav.evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(
      [
        '',
        '/cases',
        '/surveys',
        '/feedback',
        '/themes',
        '/orders',
        '/integrations',
        '/webhooks',
        '/credentials',
        '/flows',
        '/replies',
        '/alerts',
        '/locations',
        '/members',
        '/brand',
        '/themes/settings',
      ].map((p) => `/portal${p}`),
    );

    // Two metrics, by the keyboard: type, then Enter submits.
    const metricForm = page.getByRole('form', { name: 'New metric' });
    for (const name of ['Food', 'Service']) {
      await metricForm.getByLabel('Name').fill(name);
      await metricForm.getByLabel('Name').press('Enter');
      await page.getByRole('listitem').filter({ hasText: name }).first().waitFor();
      await expect(metricForm.getByLabel('Name').inputValue()).resolves.toBe('');
    }

    // A survey with three steps.
    await page.getByRole('link', { name: 'New survey' }).click();
    await page.getByRole('form', { name: 'Survey settings' }).getByLabel('Name').fill('Your visit');
    await page.getByRole('button', { name: 'Create survey' }).click();
    await page.waitForURL(/\/portal\/surveys\/sur_/);
    const surveyId = page.url().split('/').pop()!;
    const addStep = async (type: string, title: string, setup: (form: ReturnType<Page['getByRole']>) => Promise<void> = async () => {}) => {
      const form = page.getByRole('form', { name: 'New step' });
      await form.getByLabel('Type').selectOption(type);
      await form.getByLabel('Title (the question)').fill(title);
      await setup(form);
      const before = await page.locator('ol.steps > li').count();
      await form.getByRole('button', { name: 'Add step' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('ol.steps > li').length === n, before + 1);
    };
    await addStep('metrics', 'How was it?', async (form) => {
      await form.getByLabel('Food').check();
      await form.getByLabel('Service').check();
    });
    await addStep('nps', 'Would you recommend us?');
    await addStep('text', 'Anything else?', (form) => form.getByLabel('Guests must answer it').uncheck());
    const stepTitles = () => page.locator('ol.steps > li strong').allTextContents();
    expect(await stepTitles()).toEqual(['1. How was it?', '2. Would you recommend us?', '3. Anything else?']);
    // The metrics step names the metrics it rates (Survey.steps fills every step's metrics in one load).
    expect(await page.locator('ol.steps > li').first().locator('.muted').first().textContent()).toBe('metrics, required: Food, Service');

    // Reorder by keyboard (focus the button, press Enter) and back by drag.
    await page.getByRole('button', { name: 'Move step 3 up' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('ol.steps > li:nth-child(2) strong')?.textContent === '2. Anything else?');
    await page.locator('ol.steps > li:nth-child(2) .handle').dragTo(page.locator('ol.steps > li:nth-child(3)'));
    await page.waitForFunction(() => document.querySelector('ol.steps > li:nth-child(3) strong')?.textContent === '3. Anything else?');
    expect(await stepTitles()).toEqual(['1. How was it?', '2. Would you recommend us?', '3. Anything else?']);

    // Activate it.
    const settings = page.getByRole('form', { name: 'Survey settings' });
    await settings.getByLabel('Status').selectOption('active');
    await settings.getByRole('button', { name: 'Save survey' }).click();
    await settings.getByText('Saved.').waitFor();
    await checkScreen(page, 'survey-editor');

    // Its QR code, as PNG and SVG files.
    for (const [button, signature] of [
      ['Download QR (PNG)', '\x89PNG'],
      ['Download QR (SVG)', '<svg'],
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^your-visit-qr\\.${button.includes('PNG') ? 'png' : 'svg'}$`));
      expect(fs.readFileSync((await download.path())!, 'latin1')).toContain(signature);
    }

    // A guest answers it on the survey page, from the link the link builder gives.
    await page.getByRole('button', { name: 'Build the link' }).click();
    const link = (await page.getByTestId('survey-link').textContent())!;
    expect(link).toContain(`/survey/${tenant.businessId}/${surveyId}`);
    const guest = await newPage();
    await guest.page.goto(link);
    await guest.page.getByRole('group', { name: /Food/ }).getByLabel('4', { exact: true }).check();
    await guest.page
      .getByRole('group', { name: /Service/ })
      .getByLabel('5', { exact: true })
      .check();
    await untilNextPage(guest.page, () => guest.page.getByRole('button', { name: 'Next' }).click());
    await guest.page.getByLabel('9', { exact: true }).check();
    await untilNextPage(guest.page, () => guest.page.getByRole('button', { name: 'Next' }).click());
    await guest.page.getByLabel(/Anything else/).fill('Lovely chai');
    await untilNextPage(guest.page, () => guest.page.getByRole('button', { name: 'Submit' }).click());
    expect(await h1(guest.page).textContent()).toBe('Thank you');

    // ...and it shows in Feedback, with every answer in its detail.
    await open(page, 'Feedback');
    const row = page.getByRole('row').filter({ hasText: 'completed' });
    await expect(row.textContent()).resolves.toContain('Lovely chai');
    await checkScreen(page, 'feedback');
    await row.getByRole('link').click();
    await page.getByText('Food: 4').waitFor();
    await expect(page.locator('dl.answers').textContent()).resolves.toMatch(/Service: 5.*Would you recommend us\?9.*Lovely chai/);
    await checkScreen(page, 'feedback-detail');

    // CSV of the filtered list: a status filter lands in the URL, the export follows it.
    await open(page, 'Feedback');
    await page.getByLabel('Status').selectOption('completed');
    await page.waitForURL(/status=completed/);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const lines = fs
      .readFileSync((await csv.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(2);
    // A column per metric, named, then per question (issue 49).
    expect(lines[0]).toContain('Food,Service,Would you recommend us?,Anything else?');
    expect(lines[1]).toContain('4,5,9,Lovely chai');

    // With Feedback open, a submission posted through the API appears without a reload (a live subscription).
    const steps: { id: string; type: string; metrics: { metrics: { id: string }[] } | null }[] = (
      await server.graphql(
        `query($b: ID!, $s: ID!) { survey(business: $b, id: $s) { steps { id type metrics { metrics { id } } } } }`,
        { b: tenant.businessId, s: surveyId },
        tenant.headers,
      )
    ).body.data.survey.steps;
    const answers = steps.map((st) =>
      st.type === 'metrics'
        ? { step: st.id, ratings: Object.fromEntries(st.metrics!.metrics.map((m) => [m.id, 3])) }
        : { step: st.id, value: st.type === 'nps' ? 7 : 'Heard live' },
    );
    const heard = await server.graphql(
      `mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id status } }`,
      { b: tenant.businessId, s: surveyId, i: { answers } },
      tenant.headers,
    );
    expect(heard.body.errors).toBeUndefined();
    await page.getByRole('row').filter({ hasText: 'Heard live' }).waitFor({ timeout: 10_000 });

    // A rating at most 3 (any metric) finds only the submission that gave one.
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('A rating at most').selectOption('3');
    await page.waitForURL(/ratingAtMost=3/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await expect(page.locator('tbody tr').allTextContents()).resolves.toEqual([expect.stringContaining('Heard live')]);

    // The overview: both submissions in its figures, its charts drawn (lazily, by uPlot), nothing from another host.
    await open(page, 'Overview');
    await page.locator('[data-testid="chart-score-per-metric"][data-drawn]').waitFor();
    const tile = (name: string) => page.locator('dl.tiles > div').filter({ hasText: name }).textContent();
    // Two ratings each: the count first, too few to judge, the figure so far after it (src/shared/sample.ts).
    await expect(tile('Food')).resolves.toContain('2 ratings too few to judge yet (so far 3.5 / 5)');
    await expect(tile('Net Promoter Score')).resolves.toContain('2 answers too few to judge yet (so far 50)'); // one promoter (9), one passive (7)
    await expect(tile('Satisfied guests')).resolves.toContain('(so far 50%)');
    await checkScreen(page, 'overview');
    // A longer range, kept in the address, is charted by month; the numbers behind each chart are in a table.
    await page.getByLabel('From').fill('2020-01-01');
    await page.waitForURL(/from=2020-01-01/);
    await page.locator('[data-testid="chart-score-per-metric"][data-drawn]').waitFor();
    await expect(page.locator('figure.chart table').first().textContent()).resolves.toMatch(/Month from.*Food.*Service.*3\.50/);

    // The custom integration: connect, the secret once, post an order with the curl example, which speaks of the
    // business's own currency and dishes (those of its orders so far).
    const earlier = await server.graphql(
      'mutation($b: ID!) { createOrder(business: $b, input: {externalOrderId: "T-1", total: 24, currency: "EUR", items: [{name: "Margherita", itemId: "PZ-1", quantity: 2}]}) { id } }',
      { b: tenant.businessId },
      tenant.headers,
    );
    expect(earlier.body.errors).toBeUndefined();
    await open(page, 'Integrations');
    await page.getByRole('button', { name: 'Connect' }).click();
    const secret = (await page.locator('[data-secret]').textContent())!;
    expect(secret.length).toBeGreaterThan(20);
    const curl = (await page.getByTestId('curl-example').textContent())!;
    expect(curl).toContain(secret);
    expect(curl).toContain(`${server.url}/webhooks/custom/${tenant.businessId}`);
    expect(curl).toContain('"currency":"EUR"');
    expect(curl).toContain('"items":[{"name":"Margherita","itemId":"PZ-1"');
    await checkScreen(page, 'integrations');
    const posted = await runCurl(curl);
    expect(posted.status).toBeLessThan(300);
    await page.reload();
    await h1(page).waitFor();
    await page.getByRole('link', { name: 'A-1001' }).waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0); // shown once

    await open(page, 'Orders');
    await page.getByRole('link', { name: 'A-1001' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'Margherita' }).textContent()).resolves.toMatch(/Margherita\s*1\s*€12/);
    await checkScreen(page, 'order-detail');
    await open(page, 'Orders');
    await checkScreen(page, 'orders');

    // A webhook to a receiver on 127.0.0.1: its secret once, a test event delivered, redelivered.
    await open(page, 'Webhooks');
    const hookForm = page.getByRole('form', { name: 'New webhook' });
    await hookForm.getByLabel('Endpoint address').fill(`${receiver.url}/hooks`);
    await hookForm.getByLabel('Events').fill('order.created, submission.created');
    await hookForm.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.locator('[data-secret]').textContent()).toMatch(/^whsec_/);
    await checkScreen(page, 'webhooks');
    await page.getByRole('link', { name: 'Open the webhook and its delivery log' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const first = await receiver.waitFor((r) => r.url.pathname === '/hooks');
    const delivered = page.locator('ul.deliveries li').filter({ hasText: 'succeeded' });
    for (let i = 0; i < 50 && !(await delivered.count()); i++) {
      await page.getByRole('button', { name: 'Refresh the log' }).click();
      await page.waitForTimeout(200);
    }
    await delivered.first().getByText('Attempts', { exact: true }).click();
    await expect(delivered.first().getByRole('table').textContent()).resolves.toContain('200');
    await delivered.first().getByRole('button', { name: 'Redeliver' }).click();
    const again = await receiver.waitFor((r) => r.url.pathname === '/hooks' && r !== first);
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    await checkScreen(page, 'webhook-detail');

    // A credential: a field error beside its field with nothing typed lost, then the secret once; delete confirmed.
    await open(page, 'API credentials');
    const credForm = page.getByRole('form', { name: 'New credential' });
    await credForm.getByLabel('Name').fill('POS app');
    await credForm.getByLabel('Redirect addresses, one per line').fill('ftp://pos.example.com/cb');
    await credForm.getByRole('button', { name: 'Create credential' }).click();
    const uris = credForm.getByLabel('Redirect addresses, one per line');
    await credForm.locator('.field-error').waitFor();
    const describedBy = (await uris.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()).toMatch(/https/);
    expect(await credForm.getByLabel('Name').inputValue()).toBe('POS app');
    await screenshot(page, 'portal-credentials-field-error');
    await uris.fill('https://pos.example.com/cb');
    // Held to OAuth 2.1 from the start, then let go again in place (create, then edit).
    await credForm.getByLabel('Require PKCE').check();
    await credForm.getByRole('button', { name: 'Create credential' }).click();
    expect(await page.locator('[data-secret]').textContent()).toMatch(/^cs_/);
    await checkScreen(page, 'credentials');
    await page.reload();
    const pkce = page.getByLabel('Require PKCE for POS app');
    await pkce.waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0);
    expect(await pkce.isChecked()).toBe(true);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/graphql') && !!r.request().postData()?.includes('UpdateCredential')), pkce.uncheck()]);
    await page.reload();
    await pkce.waitFor();
    expect(await pkce.isChecked()).toBe(false);
    const stored = await server.orm.em.fork().findOneOrFail(Credential, { name: 'POS app' });
    expect(stored.requirePkce).toBe(false);
    await page.getByRole('button', { name: 'Delete POS app…' }).click();
    await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('stops working');
    await page.getByRole('button', { name: 'Delete it' }).click();
    await page.getByText('POS app', { exact: true }).waitFor({ state: 'detached' });

    // A feedback flow: a field error beside the message body, then created, then its dry run with a typed order.
    await open(page, 'Feedback flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await page.waitForURL(/\/portal\/flows\/new/);
    const flowForm = page.getByRole('form', { name: 'Flow settings' });
    await flowForm.getByLabel('Name').fill('After every order');
    await flowForm.getByLabel('E-mail subject').fill('How was your order?');
    await flowForm.getByLabel('Body').fill('Tell us how it was');
    await flowForm.getByRole('button', { name: 'Create flow' }).click();
    await flowForm.locator('.field-error').first().waitFor();
    const body = flowForm.getByLabel('Body');
    expect(await page.locator(`[id="${(await body.getAttribute('aria-describedby'))!.split(' ').pop()}"]`).textContent()).toContain('{{link}}');
    expect(await flowForm.getByLabel('Name').inputValue()).toBe('After every order');
    await body.fill('Tell us how it was: {{link}}');
    await flowForm.getByRole('button', { name: 'Create flow' }).click();
    await page.waitForURL(/\/portal\/flows\/ff_/);
    await page.getByRole('form', { name: 'Dry run' }).getByRole('button', { name: 'Try it' }).click();
    await expect(page.getByTestId('dry-run-result').textContent()).resolves.toMatch(/It would send by email at .*Tell us how it was: http/);
    await checkScreen(page, 'flow-editor');
    await open(page, 'Feedback flows');
    await page.getByRole('link', { name: 'After every order' }).waitFor();
    await checkScreen(page, 'flows');

    // Members: inviting e-mails an invitation, listed as pending until answered (accepting it: accounts.browser.test.ts);
    // an existing account added by the operator (the admin CLI's createMember) appears live; that staff member then signs in.
    const staffEmail = `staff-${Date.now()}@example.com`;
    await createUser(server.orm.em.fork(), { email: staffEmail, password: TEST_PASSWORD, name: 'Sam Staff' });
    await open(page, 'Members');
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('E-mail').fill(`new-${staffEmail}`);
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('table', { name: 'Pending invitations' })
      .getByRole('row')
      .filter({ hasText: `new-${staffEmail}` })
      .waitFor();
    await createMember(server.orm.em.fork(), tenant.businessId, { email: staffEmail, role: 'staff' });
    await page.getByRole('combobox', { name: `Role of ${staffEmail}` }).waitFor();
    await checkScreen(page, 'members');

    // The staff member signs in: reads feedback, but Members is closed to them and says who can open it.
    const staff = await portalPage();
    await staff.page.goto(`${server.url}/portal/members`);
    await staff.page.getByLabel('E-mail').fill(staffEmail);
    await staff.page.getByLabel('Password').fill(TEST_PASSWORD);
    await staff.page.getByRole('button', { name: 'Sign in' }).click();
    await staff.page.waitForURL(`${server.url}/portal/members`);
    await staff.page.getByRole('note').filter({ hasText: 'does not open Members: only owners and managers can' }).waitFor();
    expect(await staff.page.getByRole('form', { name: 'Invite a member' }).count()).toBe(0);
    await checkScreen(staff.page, 'members-as-staff');
    await open(staff.page, 'Feedback');
    await staff.page.getByRole('row').filter({ hasText: 'Lovely chai' }).waitFor();
    expect(staff.offsite).toEqual([]);

    await open(page, 'Surveys');
    await checkScreen(page, 'surveys');

    expect(offsite).toEqual([]);
  }, 240_000);

  it('returns to the same page after the session ends and signing in again; signing out revokes', async () => {
    const { page, offsite } = await portalPage();
    await page.goto(`${server.url}/portal/orders?status=ACCEPTED`);
    await signIn(page);
    await page.waitForURL(`${server.url}/portal/orders?status=ACCEPTED`);
    await h1(page).waitFor();

    // The session ends (every token of the user revoked, the sign-in cookie gone): reloading goes to sign in...
    await server.orm.em.getConnection().execute(`update oauth_token set revoked_at = now() where user_id = ?`, [tenant.userId]);
    await page.context().clearCookies();
    await page.reload();
    await page.waitForURL(/\/oauth\/authorize/);
    await signIn(page);
    // ...and back to the same page, filters included.
    await page.waitForURL(`${server.url}/portal/orders?status=ACCEPTED`);
    expect(await h1(page).textContent()).toBe('Orders');
    expect(await page.getByLabel('Status').inputValue()).toBe('ACCEPTED');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/oauth\/authorize/);
    await h1(page).waitFor();
    expect(await h1(page).textContent()).toBe('Sign in to continue to Business portal');
    const live = await server.orm.em
      .getConnection()
      .execute(`select count(*)::int as n from oauth_token where user_id = ? and revoked_at is null and refresh_used_at is null`, [tenant.userId]);
    expect(live[0].n).toBe(0);
    expect(offsite).toEqual([]);
  }, 120_000);

  it('serves hashed assets for a year, the page never cached, under a policy without inline scripts', async () => {
    const page = await fetch(`${server.url}/portal/feedback`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    const script = /src="(\/portal\/assets\/index-[\w-]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${server.url}/portal/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/portal/assets/nothing-here.js`)).status).toBe(404);
  });

  // Last: from here on the user belongs to two businesses, so every sign-in asks which one.
  it('lets a member of two businesses choose one on the sign-in pages, and opens the portal for it', async () => {
    await createBusiness(server.orm.em.fork(), { name: 'Cafe Two', owner: tenant.userId });
    const { page, offsite } = await portalPage();
    await page.goto(`${server.url}/portal/orders`);
    await signIn(page);
    await h1(page).filter({ hasText: 'Which business' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'portal-choose-business');
    await page.getByRole('button', { name: /Cafe Two/ }).press('Enter');
    await page.waitForURL(`${server.url}/portal/orders`);
    await page
      .getByTestId('business-name')
      .filter({ hasText: /^Cafe Two$/ })
      .waitFor();
    expect(offsite).toEqual([]);
  }, 120_000);
});
