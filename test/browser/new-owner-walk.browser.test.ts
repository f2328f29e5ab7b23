import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { freePort } from '../helpers/ports.js';
import { buildPortal, PHONE, portalLoaded, screenshot, untilNextPage, useServerAndBrowser } from '../helpers/browser.js';

/**
 * Issue 49's walk, as a new owner takes it, with no API call: the home page, sign-up and its e-mailed confirmation,
 * set-up in the portal (a metric, a survey rating the food and each dish, a location, an alert rule, a feedback flow,
 * the order webhook), then an order from the ordering system, the guest's bad answer on a phone, the owner's alert,
 * a reply with an offer, and the guest's next order redeeming it: the case turns Recovered. Each step is a screenshot
 * under test-results/walk-*.png. As a newcomer on `npm start` would, with `MAIL_OUTBOX=dev`: every mail is read, and its
 * link followed, from the dev outbox at /portal/dev/outbox.
 */
let server: TestServer;

beforeAll(() => buildPortal(), 120_000);
const newPage = useServerAndBrowser(
  (started) => void (server = started.server),
  async () => {
    const port = await freePort();
    return { env: { MAIL_OUTBOX: 'dev', SMTP_URL: undefined, PUBLIC_URL: `http://127.0.0.1:${port}`, SIGNUP: 'open' }, workers: true, port };
  },
);

const OWNER = { name: 'Giulia Rossi', email: `giulia-${Date.now()}@trattoria.example`, password: 'olive grove 1987 tide' };
const GUEST = { name: 'Marco Bianchi', email: `marco-${Date.now()}@example.com` };

/** The dev outbox's newest message to `to` whose subject matches `subject`, waited for (the workers keep it within a second). */
async function messageIn(outbox: Page, to: string, subject: RegExp, containing = '') {
  for (let tries = 0; ; tries++) {
    await outbox.goto(`${server.url}/portal/dev/outbox`);
    const found = outbox
      .getByRole('article')
      .filter({ has: outbox.getByRole('heading', { name: subject }) })
      .filter({ hasText: to })
      .filter({ hasText: containing });
    if ((await found.count()) > 0) return found.first();
    if (tries > 100) throw new Error(`no message to ${to} titled ${subject} in the outbox: ${await outbox.locator('main').textContent()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The first link of that message. */
async function linkIn(outbox: Page, to: string, subject: RegExp): Promise<string> {
  return (await (await messageIn(outbox, to, subject)).locator('a[href^="http"]').first().getAttribute('href'))!;
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 });
async function open(page: Page, label: string) {
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: label, exact: true }).click();
  await h1(page)
    .filter({ hasText: label === 'Overview' ? /./ : label })
    .waitFor();
  await portalLoaded(page);
}
let shot = 0;
const snap = (page: Page, name: string) => screenshot(page, `walk-${String(++shot).padStart(2, '0')}-${name}`);

/** The ordering system posts an order to the webhook the Integrations screen gave, as its curl example does. */
async function postOrder(endpoint: string, secret: string, body: Record<string, unknown>) {
  const posted = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify(body),
  });
  expect({ status: posted.status, body: posted.status < 300 ? undefined : await posted.text() }).toEqual({ status: expect.any(Number), body: undefined });
}

it('a new owner signs up, sets up, and follows an unhappy guest from the order to the recovery, with no API call', async () => {
  const { page } = await newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const outbox = (await newPage()).page;

  // The home page is for owners first: create an account.
  await page.goto(`${server.url}/`);
  await snap(page, 'home');
  await untilNextPage(page, () => page.getByRole('link', { name: 'Create an account' }).click());
  await page.getByLabel('Your name').fill(OWNER.name);
  await page.getByLabel('E-mail').fill(OWNER.email);
  await page.getByLabel('Business name').fill('Trattoria Roma');
  await page.getByLabel('Time zone').selectOption('Europe/Rome');
  await snap(page, 'sign-up');
  await untilNextPage(page, () => page.getByRole('button', { name: 'Create account' }).click());
  await snap(page, 'check-your-email');

  // The confirmation e-mail's link: a password, then the portal, signed in.
  await snap((await messageIn(outbox, OWNER.email, /confirm/i)).page(), 'outbox-confirmation');
  await page.goto(await linkIn(outbox, OWNER.email, /confirm/i));
  await page.getByLabel('Choose a password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Confirm and continue' }).click();
  await page.getByRole('navigation', { name: 'Portal' }).waitFor();
  await portalLoaded(page);
  await expect(page.getByTestId('business-name').textContent()).resolves.toBe('Trattoria Roma');
  await snap(page, 'portal-first');

  // A metric, and a survey rating it, then each dish of the order, then a comment.
  await open(page, 'Surveys');
  const metric = page.getByRole('form', { name: 'New metric' });
  await metric.getByLabel('Name').fill('Food');
  await metric.getByRole('button', { name: 'Add metric' }).click();
  await page.locator('ul.metrics').getByText('Food').waitFor();
  await page.getByRole('link', { name: 'New survey' }).click();
  const settings = page.getByRole('form', { name: 'Survey settings' });
  await settings.getByLabel('Name').fill('Dinner');
  await settings.getByLabel('Status').selectOption('active');
  await settings.getByRole('button', { name: 'Create survey' }).click();
  await page.waitForURL(/\/portal\/surveys\/sur_/);
  const steps = page.locator('ol.steps > li');
  const addStep = async (type: string, title: string, extra: (form: ReturnType<Page['getByRole']>) => Promise<void> = async () => {}) => {
    const form = page.getByRole('form', { name: 'New step' });
    const before = await steps.count();
    await form.getByLabel('Type').selectOption({ label: type });
    await form.getByLabel('Title (the question)').fill(title);
    await extra(form);
    await form.getByRole('button', { name: 'Add step' }).click();
    await steps.nth(before).waitFor();
  };
  await addStep('metrics: rate the metrics you choose', 'How was your dinner?', (form) => form.getByLabel('Food').check());
  await addStep('items: rate each dish of the order', 'How was each dish?');
  await addStep('text: write an answer', 'Anything else?', (form) => form.getByLabel('Guests must answer it').uncheck());
  await snap(page, 'survey');

  // A location, with the id the ordering system gives it.
  await open(page, 'Locations');
  const location = page.getByRole('form', { name: 'New location' });
  await location.getByLabel('Name', { exact: true }).fill('Centro');
  await location.getByLabel('Time zone').selectOption('Europe/Rome');
  await location.getByLabel('Id in your ordering system (optional)').fill('CENTRO');
  await location.getByRole('button', { name: 'Add location' }).click();
  await page.getByRole('status').filter({ hasText: 'Centro added.' }).waitFor();

  // An alert rule: any rating of 2 or less tells the owners.
  await open(page, 'Alert rules');
  const rule = page.getByRole('form', { name: 'New alert rule' });
  await rule.getByLabel('Name').fill('Unhappy diners');
  await rule.getByLabel('A rating of at most').fill('2');
  await rule.getByRole('button', { name: 'Add alert rule' }).click();
  await page.getByRole('list', { name: 'Alert rules' }).getByRole('listitem').filter({ hasText: 'Unhappy diners' }).waitFor();
  await snap(page, 'alert-rule');

  // A feedback flow asking at once (a trial: the default waits an hour), whatever the hour.
  await open(page, 'Feedback flows');
  await page.getByRole('link', { name: 'New flow' }).click();
  const flow = page.getByRole('form', { name: 'Flow settings' });
  await flow.getByLabel('Name').fill('After dinner');
  await flow.getByLabel('Survey').selectOption({ label: 'Dinner' });
  // The dev outbox is a sender: e-mail is offered as a channel that works.
  await flow.getByRole('checkbox', { name: 'E-mail', exact: true }).waitFor();
  await flow.getByLabel('Send after (minutes)').fill('0');
  await flow.getByRole('checkbox', { name: /Wait out quiet hours/ }).uncheck();
  await flow.getByRole('button', { name: 'Create flow' }).click();
  await page.waitForURL(/\/portal\/flows\/ff_/);
  await snap(page, 'flow');

  // The order webhook: connected, its endpoint and secret handed to the ordering system.
  await open(page, 'Integrations');
  await page.getByRole('button', { name: 'Connect' }).click();
  const secret = (await page.getByRole('region', { name: 'Webhook secret' }).locator('code').textContent())!;
  const endpoint = (await page.getByTestId('endpoint').textContent())!;
  await snap(page, 'integration');

  // The guest's orders at the restaurant, paid on its website, as its ordering system posts them.
  const guestOrder = (order: Record<string, unknown>) =>
    postOrder(endpoint, secret, { externalLocationId: 'CENTRO', currency: 'EUR', payment: true, channel: 'WEBSITE', customerName: GUEST.name, ...order });

  // An order arrives: the guest is asked by e-mail, and answers on a phone, badly, dish by dish.
  await guestOrder({
    externalOrderId: 'R-1001',
    total: 46,
    metadata: { orderType: 'dine-in' },
    customerEmail: GUEST.email,
    items: [
      { itemId: 'LAS', name: 'Lasagne', quantity: 1, unitPrice: 18 },
      { itemId: 'TIR', name: 'Tiramisu', quantity: 2, unitPrice: 14 },
    ],
  });
  const guest = (await newPage(PHONE)).page;
  await guest.goto(await linkIn(outbox, GUEST.email, /Trattoria Roma/));
  await snap(outbox, 'outbox-request');
  await guest.getByRole('group', { name: /Food/ }).getByLabel('2', { exact: true }).check();
  await snap(guest, 'guest-first-step');
  await untilNextPage(guest, () => guest.getByRole('button', { name: 'Next' }).click());
  await guest
    .getByRole('group', { name: /Lasagne/ })
    .getByLabel('1', { exact: true })
    .check();
  await guest
    .getByRole('group', { name: /Tiramisu/ })
    .getByLabel('5', { exact: true })
    .check();
  await snap(guest, 'guest-dishes');
  await untilNextPage(guest, () => guest.getByRole('button', { name: 'Next' }).click());
  await guest.getByRole('textbox').fill('The lasagne was cold in the middle.');
  await untilNextPage(guest, () => guest.getByRole('button', { name: 'Submit' }).click());
  await expect(h1(guest).textContent()).resolves.toBe('Thank you');
  await snap(guest, 'guest-thanks');

  // The owner's alert: its link opens the case, with every answer, the dishes by name.
  await page.goto(await linkIn(outbox, OWNER.email, /Unhappy guest/));
  await snap(outbox, 'outbox-alert');
  await h1(page)
    .filter({ hasText: `${GUEST.name}: Lasagne 1 of 5` })
    .waitFor();
  await portalLoaded(page);
  await expect(page.locator('dl.answers').textContent()).resolves.toMatch(
    /Food: 2 of 5.*Lasagne: 1 of 5.*Tiramisu: 5 of 5.*The lasagne was cold in the middle\./,
  );
  await snap(page, 'case');

  // A reply, and an offer the guest receives.
  const reply = page.getByRole('form', { name: 'Reply to the guest' });
  await reply.getByLabel('Your reply').fill('We are sorry, Marco: the chef has been told. Giulia');
  await reply.getByRole('button', { name: 'Send reply' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Reply sent by e-mail to ${GUEST.email}.` })
    .waitFor();
  const offer = page.getByRole('form', { name: 'Send an offer' });
  await offer.getByLabel('What the guest gets').fill('A free dessert on your next dinner');
  await offer.getByRole('button', { name: 'Send the offer' }).click();
  const created = page.getByRole('status').filter({ hasText: /^Offer \w+ created and sent to the guest\.$/ });
  await created.waitFor();
  const code = /^Offer (\w+)/.exec((await created.textContent())!)![1];
  await messageIn(outbox, GUEST.email, /./, code);
  await snap(page, 'case-offer');

  // The guest's next order carries the code: the case turns Recovered while the owner looks at it.
  await guestOrder({ externalOrderId: 'R-1002', total: 39, metadata: { orderType: 'dine-in', voucher: code } });
  await page.locator('.badges .status.case-recovered').waitFor({ timeout: 15_000 });
  await page
    .getByTestId('recovered-by')
    .filter({ hasText: new RegExp(`came back with order R-1002, redeeming the offer ${code}`) })
    .waitFor({ timeout: 10_000 });
  await snap(page, 'case-recovered');
}, 240_000);
