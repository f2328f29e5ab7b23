import fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { guestSurvey, type GuestSurveyFixture } from '../helpers/guest.js';
import {
  axeViolations,
  axeViolationsOfCopy,
  brandShown,
  buildPortal,
  fitsWidth,
  PHONE,
  screenshot,
  signInOnPage,
  submitByKeyboard,
  tabTo,
  useServerAndBrowser,
} from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { DEMO_BRAND_COLOR, DEMO_DISPLAY_NAME, demoLogo } from '../../src/cli/demo-brand.js';
import { setLogo, updateBusiness } from '../../src/modules/business/business.service.js';

/**
 * Issue 36's items step in Debian's Chromium on a phone (390×844), keyboard only and JavaScript off: one radio group
 * per dish of the order (3 lines, 2 of the same dish: 2 groups), each a fieldset named by its dish; a dish left out
 * is an error linked to its group; axe finds nothing on any page, drawn in the demo's brand colour with its logo.
 */
let server: TestServer;
let fx: GuestSurveyFixture;
let dishes: { biryani: string; raita: string };
const newPage = useServerAndBrowser(
  async (started) => {
    server = started.server;
    const [fixture] = await Promise.all([guestSurvey(server, { steps: [] }), buildPortal()]);
    fx = fixture;
    // The demo's face: axe checks the radios, error summary and buttons in its colour, under its logo.
    const em = server.orm.em.fork();
    await updateBusiness(em, fx.business, { displayName: DEMO_DISPLAY_NAME, brandColor: DEMO_BRAND_COLOR });
    await setLogo(em, fx.business, demoLogo());
    fx.steps.items = await fx.addStep({ type: 'items', required: true, content: { title: 'How was each dish?', scale: '5' } });
    fx.steps.text = await fx.addStep({ type: 'text', inputType: 'long', content: { title: 'Anything else?' } });
    // A comment opens a case: the case page must show the dishes too, though they are not what opened it.
    await fx.c.data(`mutation($b: ID!, $i: CreateAlertRuleInput!) { createAlertRule(business: $b, input: $i) { id } }`, {
      b: fx.business,
      i: { name: 'Warm food', when: { keywords: ['warm'] }, notify: [{ role: 'owner' }] },
    });
    const d = await fx.c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { items { menuItem { id } } } }`, {
      b: fx.business,
      i: {
        externalOrderId: 'BR-1',
        total: 2400,
        currency: 'PKR',
        customerName: 'Bilal',
        customerPhoneNumber: '+923001234567',
        items: [
          { name: 'Chicken Biryani', quantity: 1 },
          { name: 'Raita', quantity: 2 },
          { name: 'Chicken Biryani', quantity: 1 },
        ],
      },
    });
    dishes = { biryani: d.createOrder.items[0].menuItem.id, raita: d.createOrder.items[1].menuItem.id };
  },
  async () => {
    // The portal's sign-in form is checked to come from the service's own address.
    const port = await freePort();
    return { env: { PUBLIC_URL: `http://127.0.0.1:${port}` }, port, workers: true };
  },
);

async function checkPage(page: Page, name: string) {
  const brand = await brandShown(page);
  expect({ page: name, name: brand.name, logoLoaded: brand.logoLoaded }).toEqual({ page: name, name: DEMO_DISPLAY_NAME, logoLoaded: true });
  if (brand.buttonBackground) expect({ page: name, button: brand.buttonBackground }).toEqual({ page: name, button: 'rgb(20, 83, 45)' });
  expect({ page: name, violations: await axeViolationsOfCopy(page) }).toEqual({ page: name, violations: [] });
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, `guest-items-${name}`);
}

it('a guest rates each dish of their order with the keyboard alone, JavaScript off', async () => {
  const { page } = await newPage({ ...PHONE, javaScriptEnabled: false });
  await page.goto(`${server.url}${fx.path}?custom.customOrderId=BR-1`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('How was each dish?');
  expect(await page.locator('.progress').textContent()).toBe('Step 1 of 2');
  const groups = page.getByRole('group');
  expect(await groups.count()).toBe(2);
  expect(
    await page
      .getByRole('group', { name: /Chicken Biryani/ })
      .getByRole('radio')
      .count(),
  ).toBe(5);
  expect(await page.getByRole('group', { name: /Raita/ }).getByRole('radio').count()).toBe(5);
  await checkPage(page, '1-dishes');

  // Only the biryani rated: the error summary names the raita and links to its first radio.
  await tabTo(page, `#i-${dishes.biryani}-0`);
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await submitByKeyboard(page);
  expect(await page.locator('.error-summary').textContent()).toContain('Choose a rating for Raita');
  expect(await page.isChecked(`#i-${dishes.biryani}-3`)).toBe(true);
  await checkPage(page, '2-error');

  await tabTo(page, `#i-${dishes.raita}-0`);
  await page.keyboard.press('ArrowRight');
  await submitByKeyboard(page);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Anything else?');
  await tabTo(page, 'textarea#value');
  await page.keyboard.type('Raita was warm');
  await submitByKeyboard(page);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Thank you');
  await checkPage(page, '3-thanks');

  const d = await fx.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s) { data { status answers { step items value } } } }`, {
    b: fx.business,
    s: fx.survey,
  });
  expect(d.submissions.data).toEqual([
    {
      status: 'completed',
      answers: [
        { step: fx.steps.items, items: { [dishes.biryani]: 4, [dishes.raita]: 2 }, value: null },
        { step: fx.steps.text, items: null, value: 'Raita was warm' },
      ],
    },
  ]);

  // The manager reads it in the portal: each dish by its name with its rating, in the list, the answer and the CSV.
  const manager = await newPage();
  await manager.page.goto(`${server.url}/portal/feedback?survey=${fx.survey}`);
  await signInOnPage(manager.page, fx.tenant);
  const row = manager.page.getByRole('row').filter({ hasText: 'completed' });
  await expect(row.textContent()).resolves.toContain('4 / 2');
  const [csv] = await Promise.all([manager.page.waitForEvent('download'), manager.page.getByRole('button', { name: 'Export CSV' }).click()]);
  const [head, line] = fs
    .readFileSync((await csv.path())!, 'utf8')
    .trim()
    .split('\r\n');
  expect(head).toContain('Chicken Biryani,Raita,Anything else?');
  expect(line).toContain('4,2,Raita was warm');
  await row.getByRole('link').first().click();
  await manager.page.getByText('Chicken Biryani: 4').waitFor();
  expect(await manager.page.locator('dl.answers').textContent()).toContain('Raita: 2');
  expect(await axeViolations(manager.page)).toEqual([]);
  await screenshot(manager.page, 'portal-feedback-dishes');

  // The case the comment opened shows every answer, the dishes by name included; a reply that fails says why.
  const [theCase] = (await fx.c.data(`query($b: ID!) { cases(business: $b) { data { id } } }`, { b: fx.business })).cases.data;
  await fx.c.data(`mutation($b: ID!, $c: ID!) { createCaseMessage(business: $b, case: $c, input: {body: "Sorry about the raita", channel: "sms"}) { id } }`, {
    b: fx.business,
    c: theCase.id,
  });
  await manager.page.goto(`${server.url}/portal/cases/${theCase.id}`);
  await manager.page.locator('dl.answers').waitFor();
  expect(await manager.page.locator('dl.answers').textContent()).toMatch(
    /How was each dish\?Chicken Biryani: 4 of 5Raita: 2 of 5Anything else\?Raita was warm/,
  );
  await manager.page.getByText('Not sent: no sender configured for SMS').waitFor({ timeout: 15_000 });
  expect(await axeViolations(manager.page)).toEqual([]);
  await screenshot(manager.page, 'portal-case-dishes');
});

it('skips the step for a guest whose link names no order', async () => {
  const { page } = await newPage({ ...PHONE, javaScriptEnabled: false });
  await page.goto(`${server.url}${fx.path}?ch=qr`);
  expect(await page.locator('.progress').textContent()).toBe('Step 1 of 1');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Anything else?');
  await checkPage(page, '4-no-order');
});
