import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { guestSurvey, type GuestSurveyFixture } from '../helpers/guest.js';
import { axeViolations, fitsWidth, PHONE, screenshot, submitByKeyboard, tabTo, untilNextPage, useServerAndBrowser } from '../helpers/browser.js';

/**
 * A guest on a phone, in Debian's Chromium: keyboard only, JavaScript off, errors, resume, Urdu, axe on every page.
 * The browser enforces the pages' CSP and sends its own Origin and Sec-Fetch-* headers with every form.
 */
let server: TestServer;
let fx: GuestSurveyFixture;
const newPage = useServerAndBrowser(async (started) => {
  server = started.server;
  fx = await guestSurvey(server);
});

const phone = (options = {}) => newPage({ ...PHONE, ...options });

/** axe finds nothing, nothing scrolls sideways, and a screenshot is kept. */
async function checkPage(page: Page, name: string) {
  expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, `guest-${name}`);
}

const heading = (page: Page) =>
  page
    .getByRole('heading', { level: 1 })
    .textContent()
    .then((t) => t?.trim());
const progress = (page: Page) => page.locator('.progress').textContent();

const SUB = 'id status completedAt channel metadata order { id } location { id } answers { step value ratings }';
async function submissions(f: GuestSurveyFixture) {
  const d = await f.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, pageSize: 100) { data { ${SUB} } } }`, {
    b: f.business,
    s: f.survey,
  });
  return d.submissions.data as any[];
}

/** The four steps by mouse (or touch): check the options, press the button. */
async function answerByClicks(page: Page, f: GuestSurveyFixture, stopAfter = 4) {
  const steps: Array<() => Promise<void>> = [
    async () => {
      await page.getByRole('group', { name: /Food/ }).getByLabel('4', { exact: true }).check();
      await page
        .getByRole('group', { name: /Service/ })
        .getByLabel('5', { exact: true })
        .check();
    },
    () => page.getByLabel('8', { exact: true }).check(),
    () => page.getByLabel('Dine-in').check(),
    () => page.getByLabel(/Anything else/).fill('Chai was cold'),
  ];
  for (const step of steps.slice(0, stopAfter)) {
    await step();
    await untilNextPage(page, () => page.getByRole('button', { name: /^(Next|Submit)$/ }).click());
  }
  void f;
}

describe('the survey page in a real browser', () => {
  it('a guest completes the 4-step survey on a phone with the keyboard alone', async () => {
    const { page } = await phone();
    await page.goto(`${server.url}${fx.path}?ch=link`);
    expect(await heading(page)).toBe('How was it?');
    expect(await progress(page)).toBe('Step 1 of 4');
    await checkPage(page, '1-metrics');
    await tabTo(page, `#r-${fx.metrics.food}-0`);
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await tabTo(page, `#r-${fx.metrics.service}-0`);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await submitByKeyboard(page);

    expect(await progress(page)).toBe('Step 2 of 4');
    await checkPage(page, '2-nps');
    await tabTo(page, '#value-0');
    for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
    await submitByKeyboard(page);

    expect(await heading(page)).toBe('How did you order?');
    await checkPage(page, '3-choice');
    await tabTo(page, '#value-0');
    await page.keyboard.press('ArrowDown');
    await submitByKeyboard(page);

    expect(await progress(page)).toBe('Step 4 of 4');
    await checkPage(page, '4-text');
    await tabTo(page, 'textarea#value');
    await page.keyboard.type('Great naan, slow service');
    await submitByKeyboard(page);

    expect(await heading(page)).toBe('Thank you');
    await checkPage(page, '5-thanks');
    const mine = (await submissions(fx)).find((s) => s.answers.some((a: any) => a.value === 'Great naan, slow service'));
    expect(mine).toMatchObject({ status: 'completed', channel: 'link', completedAt: expect.any(Number) });
    expect(mine.answers.map((a: any) => a.ratings ?? a.value)).toEqual([
      { [fx.metrics.food]: 5, [fx.metrics.service]: 4 },
      9,
      'Takeaway',
      'Great naan, slow service',
    ]);
  });

  it('works the same with JavaScript disabled', async () => {
    const { page } = await phone({ javaScriptEnabled: false });
    await page.goto(`${server.url}${fx.path}`);
    await answerByClicks(page, fx);
    expect(await heading(page)).toBe('Thank you');
    await screenshot(page, 'guest-nojs-thanks');
    expect((await submissions(fx)).some((s) => s.status === 'completed' && s.answers.some((a: any) => a.value === 'Chai was cold'))).toBe(true);
  });

  it('announces validation errors in a summary whose links take the guest to each field', async () => {
    const { page } = await phone();
    await page.goto(`${server.url}${fx.path}`);
    await page.getByRole('group', { name: /Food/ }).getByLabel('3', { exact: true }).check();
    await untilNextPage(page, () => page.getByRole('button', { name: 'Next' }).click());
    const summary = page.getByRole('alert');
    expect(await summary.getByRole('heading').textContent()).toBe('There is a problem');
    const link = summary.getByRole('link', { name: 'Choose a rating for Service' });
    await link.focus();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Choose a rating for Service');
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => location.hash === `#r-${id}-0`, fx.metrics.service);
    expect(await page.locator(`#r-${fx.metrics.service}-0`).evaluate((el) => el.matches(':target'))).toBe(true);
    // What the guest chose is still chosen.
    expect(await page.getByRole('group', { name: /Food/ }).getByLabel('3', { exact: true }).isChecked()).toBe(true);
    expect(await page.title()).toMatch(/^Error: /);
    await checkPage(page, 'error-summary');
  });

  it('links the order and location from the link, then says "already answered" when it is opened again', async () => {
    const f = await guestSurvey(server);
    const loc = await f.location('Saddar', { branch: 'KHI-09' });
    const order = await f.order('B-500', 'KHI-09');
    const url = `${server.url}${f.path}?custom.customOrderId=B-500&custom.customLocationId=KHI-09&location:metadata=branch.KHI-09&ch=qr`;
    const { page } = await phone();
    await page.goto(url);
    await answerByClicks(page, f);
    expect(await heading(page)).toBe('Thank you');
    const [s] = await submissions(f);
    expect(s).toMatchObject({ status: 'completed', channel: 'qr', order: { id: order }, location: { id: loc } });

    await page.goto(url);
    expect(await heading(page)).toBe('Already answered');
    await checkPage(page, 'already-answered');
    const other = await phone();
    await other.page.goto(url);
    expect(await heading(other.page)).toBe('Already answered');
  });

  it('resumes at step 3 when the guest leaves after step 2 and comes back', async () => {
    const { page } = await phone();
    await page.goto(`${server.url}${fx.path}`);
    await answerByClicks(page, fx, 2);
    expect(await progress(page)).toBe('Step 3 of 4');
    await page.goto('about:blank');
    await page.goto(`${server.url}${fx.path}`);
    expect(await progress(page)).toBe('Step 3 of 4');
    expect(await heading(page)).toBe('How did you order?');
  });

  it('renders Urdu right to left', async () => {
    const { page } = await phone();
    await page.goto(`${server.url}${fx.path}?lang=ur`);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');
    expect(await page.getByRole('button').textContent()).toBe('اگلا');
    await checkPage(page, 'urdu');
    await page.getByRole('link', { name: 'English' }).click();
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
  });

  it('has friendly not-found and closed pages that axe finds nothing wrong with', async () => {
    const { page } = await phone();
    const missing = await page.goto(`${server.url}/survey/bus_nope/sur_nope`);
    expect(missing?.status()).toBe(404);
    expect(await heading(page)).toBe('Survey not found');
    await checkPage(page, 'not-found');
    const f = await guestSurvey(server, { steps: [['i', { type: 'info', content: { title: 'Hello', body: 'Welcome' } }]] });
    await page.goto(`${server.url}${f.path}`);
    expect(await heading(page)).toBe('Hello');
    await checkPage(page, 'info');
    await f.setStatus('archived');
    const closed = await page.goto(`${server.url}${f.path}`);
    expect(closed?.status()).toBe(410);
    expect(await heading(page)).toBe('This survey is closed');
    await checkPage(page, 'closed');
  });
});
