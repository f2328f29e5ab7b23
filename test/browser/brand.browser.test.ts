import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { guestSurvey, type GuestSurveyFixture } from '../helpers/guest.js';
import { usePortal } from '../helpers/portal.js';
import { axeViolations, axeViolationsOfCopy, brandShown, fitsWidth, PHONE, screenshot, signInOnPage, tabTo, untilNextPage } from '../helpers/browser.js';
import { DEMO_BRAND_COLOR, DEMO_DISPLAY_NAME, demoLogo } from '../../src/cli/demo-brand.js';
import { setLogo, updateBusiness } from '../../src/modules/business/business.service.js';

/**
 * Issue 36 in Debian's Chromium: the branded survey page on a phone (390×844), keyboard only and JavaScript off, with
 * the demo's brand colour and logo, axe clean on every page; and the portal's Brand screen with its live preview.
 */

let server: TestServer;
let fx: GuestSurveyFixture;
let owner: Tenant;

const { newPage } = usePortal({}, async (portal) => {
  server = portal.server;
  fx = await guestSurvey(server, {
    steps: [
      ['nps', { type: 'nps', required: true }],
      ['text', { type: 'text', inputType: 'long', content: { title: 'Anything else?' } }],
    ],
  });
  const em = server.orm.em.fork();
  await updateBusiness(em, fx.business, { displayName: DEMO_DISPLAY_NAME, brandColor: DEMO_BRAND_COLOR, reviewUrl: 'https://maps.example.com/demo-bistro' });
  await setLogo(em, fx.business, demoLogo());
  owner = await createTenant(server, { businessName: 'Cafe Brand' });
});

describe('the branded survey page', () => {
  it('on a phone, keyboard only, JavaScript off: name, logo, brand colour on buttons and focus rings, axe clean', async () => {
    const { page } = await newPage({ ...PHONE, javaScriptEnabled: false });
    await page.goto(`${server.url}${fx.path}?ch=qr`);
    expect(await brandShown(page)).toEqual({ name: DEMO_DISPLAY_NAME, logoLoaded: true, logoAlt: '', buttonBackground: 'rgb(20, 83, 45)' });
    expect({ violations: await axeViolationsOfCopy(page) }).toEqual({ violations: [] });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'brand-guest-1-nps');

    // The focus ring of a chosen answer is drawn in the brand colour.
    await tabTo(page, '#value-0');
    for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
    const ring = await page.evaluate(() => {
      const label = document.activeElement!.closest('label')!;
      const style = getComputedStyle(label);
      return { id: document.activeElement!.id, outline: `${style.outlineStyle} ${style.outlineColor}` };
    });
    expect(ring).toEqual({ id: 'value-9', outline: 'solid rgb(20, 83, 45)' });
    await screenshot(page, 'brand-guest-1-nps-focus');
    await tabTo(page, 'button[type=submit]');
    await untilNextPage(page, () => page.keyboard.press('Enter'));

    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Anything else?');
    expect((await brandShown(page)).name).toBe(DEMO_DISPLAY_NAME);
    expect({ violations: await axeViolationsOfCopy(page) }).toEqual({ violations: [] });
    await screenshot(page, 'brand-guest-2-text');
    await tabTo(page, 'textarea');
    await page.keyboard.type('Lovely karahi');
    await tabTo(page, 'button[type=submit]');
    await untilNextPage(page, () => page.keyboard.press('Enter'));

    // The thank-you page: the brand, and the review link for every guest, in the brand colour.
    const thanks = await brandShown(page);
    expect(thanks).toEqual({ name: DEMO_DISPLAY_NAME, logoLoaded: true, logoAlt: '', buttonBackground: 'rgb(20, 83, 45)' });
    expect(await page.getByRole('link', { name: 'Review us' }).getAttribute('href')).toBe('https://maps.example.com/demo-bistro');
    expect({ violations: await axeViolationsOfCopy(page) }).toEqual({ violations: [] });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'brand-guest-3-thanks');
  });
});

describe('the portal Brand screen', () => {
  it('previews the guest page and the e-mail live, refuses a light colour, saves, and uploads a logo', async () => {
    const { page } = await newPage();
    await page.goto(`${server.url}/portal/brand`);
    await signInOnPage(page, owner);
    await page.waitForURL(`${server.url}/portal/brand`);
    await page.getByRole('heading', { level: 1, name: 'Brand' }).waitFor();
    await page.getByLabel('Name shown to guests').waitFor();

    await page.getByLabel('Name shown to guests').fill('Cafe Brand — Gulberg');
    await page.getByLabel('Brand colour as #RRGGBB').fill('#FFD700');
    await page.getByTestId('contrast').filter({ hasText: 'too light' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await page.getByLabel('Brand colour as #RRGGBB').fill(DEMO_BRAND_COLOR);
    await page.getByTestId('contrast').filter({ hasText: 'readable (AA)' }).waitFor();
    expect(await page.getByTestId('preview-email').textContent()).toContain('How was your order at Cafe Brand — Gulberg?');
    await page.getByLabel('Review link (https)').fill('https://maps.example.com/cafe-brand');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: guests see it from now on.').waitFor();

    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: demoLogo().data });
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('[data-testid=preview-page] img')?.naturalWidth ?? 0) > 0);
    await page
      .getByLabel('Logo')
      .setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    await page
      .getByText(/SVG is not accepted/)
      .first()
      .waitFor();

    const saved = await server.graphql(
      'query($id: ID!) { business(id: $id) { displayName brandColor reviewUrl logoUrl } }',
      { id: owner.businessId },
      owner.headers,
    );
    expect(saved.body.data.business).toEqual({
      displayName: 'Cafe Brand — Gulberg',
      brandColor: DEMO_BRAND_COLOR,
      reviewUrl: 'https://maps.example.com/cafe-brand',
      logoUrl: expect.stringMatching(/\/logos\/bus_\w+\/[0-9a-f]{64}\.png$/),
    });
    for (const [size, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', PHONE.viewport],
    ] as const) {
      await page.setViewportSize(viewport);
      expect({ size, violations: await axeViolations(page) }).toEqual({ size, violations: [] });
      expect({ size, fits: await fitsWidth(page) }).toEqual({ size, fits: true });
      await screenshot(page, `brand-portal-${size}`);
    }
  });
});
