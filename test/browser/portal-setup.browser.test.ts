import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { usePortal, type Person } from '../helpers/portal.js';
import { Location } from '../../src/modules/location/location.entity.js';
import { orderTimeZone } from '../../src/modules/location/location.service.js';
import { SurveyStep } from '../../src/modules/survey/survey-step.entity.js';
import { Survey } from '../../src/modules/survey/survey.entity.js';
import { until } from '../helpers/until.js';
import { checkPortalScreen, errorOf, PHONE, portalLoaded, screenshot, untilNextPage } from '../helpers/browser.js';

/**
 * Issue 49, item 2: what an owner sets up, made in the portal without the API, in Debian's Chromium against a real
 * server and database: locations (name, time zone, the ordering system's id, more metadata), saved replies, and the
 * survey editor's dishes (items) step. Each is created, refused with an error beside its field (nothing typed lost),
 * edited and deleted, what is stored read back from the database or the API; axe on a desktop and a 390 px phone.
 * A staff member sees both lists, told why there is nothing to change, with no control they could not use.
 */
let server: TestServer;
let tenant: Tenant;
let staff: Person;

const { newPage, api, signedIn } = usePortal(
  { business: 'Karachi Grill', staffDomain: 'karachi-grill.example' },
  (portal) => ({ server, tenant, staff } = portal),
);

/** The focused element's accessible label (aria-label, else its text). */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);

const stored = async () =>
  (await server.orm.em.fork().find(Location, { business: tenant.businessId }, { orderBy: { createdAt: 'asc' } })).map((l) => ({
    name: l.name,
    timeZone: l.timeZone ?? null,
    metadata: l.metadata,
  }));

it('an owner adds a location (its time zone first the browser’s), is shown errors beside their fields, edits it and deletes it by keyboard', async () => {
  const page = await signedIn(tenant, '/portal/locations', { timezoneId: 'Asia/Karachi' });
  await page.getByText('No location yet').waitFor();
  const form = page.getByRole('form', { name: 'New location' });
  // The business has no time zone: a new location starts in the browser's.
  expect(await form.getByLabel('Time zone').inputValue()).toBe('Asia/Karachi');

  // No name and a key with a dot: each refusal beside its own field, everything typed still there.
  await form.getByLabel('Id in your ordering system (optional)').fill('GUL-01');
  await form.getByRole('button', { name: 'Add a pair' }).click();
  await form.getByLabel('Key 1').fill('branch.code');
  await form.getByLabel('Value 1').fill('LHR-01');
  await form.getByRole('button', { name: 'Add location' }).click();
  await form.locator('.field-error').first().waitFor();
  expect(await errorOf(page, form.getByLabel('Name', { exact: true }))).toBe('must not be empty');
  expect(await errorOf(page, form.getByLabel('Key 1'))).toBe('keys must contain no dot');
  expect(await form.getByLabel('Id in your ordering system (optional)').inputValue()).toBe('GUL-01');
  expect(await form.getByLabel('Value 1').inputValue()).toBe('LHR-01');
  expect(await form.getByLabel('Time zone').inputValue()).toBe('Asia/Karachi');
  await checkPortalScreen(page, 'locations-field-errors');
  expect(await stored()).toEqual([]);

  // Corrected, and sent with Enter from the name field.
  await form.getByLabel('Key 1').fill('branchCode');
  await form.getByLabel('Name', { exact: true }).fill('Gulberg');
  await form.getByLabel('Name', { exact: true }).press('Enter');
  await page.getByRole('status').filter({ hasText: 'Gulberg added.' }).waitFor();
  expect(await stored()).toEqual([{ name: 'Gulberg', timeZone: 'Asia/Karachi', metadata: { externalLocationId: 'GUL-01', branchCode: 'LHR-01' } }]);
  // Orders that name GUL-01 are now this location's: their quiet hours are read in its zone.
  expect(await orderTimeZone(server.orm.em.fork(), tenant.businessId, 'GUL-01')).toBe('Asia/Karachi');
  const card = page.getByRole('list', { name: 'Locations' }).getByRole('listitem').filter({ hasText: 'Gulberg' });
  await expect(card.locator('dl').textContent()).resolves.toBe('Time zoneAsia/KarachiId in the ordering systemGUL-01branchCodeLHR-01');
  expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('');
  await checkPortalScreen(page, 'locations');

  // Edited: renamed, following the business's zone, another ordering id, the pair removed.
  await card.getByRole('button', { name: 'Edit Gulberg' }).click();
  const edit = page.getByRole('form', { name: 'Edit Gulberg' });
  await edit.getByLabel('Name', { exact: true }).fill('Gulberg Main');
  await edit.getByLabel('Time zone').selectOption({ label: "Same as the business's (none set yet, so UTC)" });
  await edit.getByLabel('Id in your ordering system (optional)').fill('GUL-02');
  await checkPortalScreen(page, 'location-edit');
  // A key given twice would keep one value of the two: said beside it as it is typed, and nothing is sent.
  await edit.getByRole('button', { name: 'Add a pair' }).click();
  await edit.getByLabel('Key 2').fill('branchCode');
  expect(await errorOf(page, edit.getByLabel('Key 2'))).toBe('is given twice');
  await edit.getByRole('button', { name: 'Save location' }).click();
  await edit.getByRole('alert').filter({ hasText: 'Please correct the highlighted fields.' }).waitFor();
  expect((await stored())[0].name).toBe('Gulberg');
  await edit.getByRole('button', { name: 'Remove pair 2' }).click();
  await edit.getByRole('button', { name: 'Remove pair 1' }).click();
  await edit.getByRole('button', { name: 'Save location' }).click();
  await page.getByRole('status').filter({ hasText: 'Gulberg Main saved.' }).waitFor();
  expect(await stored()).toEqual([{ name: 'Gulberg Main', timeZone: null, metadata: { externalLocationId: 'GUL-02' } }]);

  // Deleted by keyboard: the question takes the focus, Cancel gives it back, then Delete it.
  const remove = page.getByRole('button', { name: 'Delete Gulberg Main…' });
  await remove.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('Delete Gulberg Main? Its feedback and orders stay');
  expect(await focused(page)).toBe('Cancel');
  await page.keyboard.press('Enter');
  expect(await page.getByRole('alertdialog').count()).toBe(0);
  expect(await focused(page)).toBe('Delete Gulberg Main…');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toBe('Delete it');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Gulberg Main deleted.' }).waitFor();
  await page.getByText('No location yet').waitFor();
  expect(await stored()).toEqual([]);
}, 120_000);

it('an owner on a phone writes a saved reply, is told when it is too long, edits it and deletes it', async () => {
  const page = await signedIn(tenant, '/portal/replies', PHONE);
  await page.getByText('No saved reply yet').waitFor();
  const form = page.getByRole('form', { name: 'New saved reply' });
  const long = `We are sorry your food arrived cold. ${'x'.repeat(2000)}`;
  await form.getByLabel('Name').fill('Cold food');
  await form.getByLabel('Text').fill(long);
  await form.getByRole('button', { name: 'Add saved reply' }).click();
  await form.locator('.field-error').waitFor();
  expect(await errorOf(page, form.getByLabel('Text'))).toBe('must be at most 2000 characters');
  expect(await form.getByLabel('Name').inputValue()).toBe('Cold food');
  expect(await form.getByLabel('Text').inputValue()).toBe(long);
  await expect(page.locator(`[id="${(await form.getByLabel('Text').getAttribute('aria-describedby'))!.split(' ')[0]}"]`).textContent()).resolves.toContain(
    '2,037 of 2,000 characters',
  );
  await screenshot(page, 'portal-saved-reply-error-phone');
  expect((await api(`query($b: ID!) { replyTemplates(business: $b) { total } }`)).replyTemplates.total).toBe(0);

  await form.getByLabel('Text').fill('We are sorry your food arrived cold.\nYour next dessert is on us.');
  await form.getByRole('button', { name: 'Add saved reply' }).click();
  await page.getByRole('status').filter({ hasText: 'Cold food added.' }).waitFor();
  const saved = async () => (await api(`query($b: ID!) { replyTemplates(business: $b) { data { name body } } }`)).replyTemplates.data;
  expect(await saved()).toEqual([{ name: 'Cold food', body: 'We are sorry your food arrived cold.\nYour next dessert is on us.' }]);
  await checkPortalScreen(page, 'saved-replies');

  await page.getByRole('button', { name: 'Edit Cold food' }).click();
  const edit = page.getByRole('form', { name: 'Edit Cold food' });
  await edit.getByLabel('Name').fill('Cold food, dessert offered');
  await edit.getByLabel('Text').fill('We are sorry your food arrived cold. Your next dessert is on us.');
  await checkPortalScreen(page, 'saved-reply-edit');
  await page.setViewportSize(PHONE.viewport);
  await edit.getByRole('button', { name: 'Save reply' }).click();
  await page.getByRole('status').filter({ hasText: 'Cold food, dessert offered saved.' }).waitFor();
  expect(await saved()).toEqual([{ name: 'Cold food, dessert offered', body: 'We are sorry your food arrived cold. Your next dessert is on us.' }]);

  await page.getByRole('button', { name: 'Delete Cold food, dessert offered…' }).click();
  await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('It is no longer offered in the Inbox');
  await page.getByRole('button', { name: 'Delete it' }).click();
  await page.getByText('No saved reply yet').waitFor();
  expect(await saved()).toEqual([]);
}, 120_000);

it('the survey editor adds a dishes step rated by thumbs, which a guest then sees for each dish of the order, and edits it to 1 to 5', async () => {
  const survey = (await api(`mutation($b: ID!) { createSurvey(business: $b, input: { name: "Dinner", status: active }) { id } }`)).createSurvey.id;
  const page = await signedIn(tenant, `/portal/surveys/${survey}`);
  const form = page.getByRole('form', { name: 'New step' });

  // A choice step without choices is refused beside its field; switching to items keeps the title typed.
  await form.getByLabel('Type').selectOption('choice');
  await form.getByLabel('Title (the question)').fill('Rate what you ate');
  await form.getByRole('button', { name: 'Add step' }).click();
  await form.locator('.field-error').waitFor();
  expect(await errorOf(page, form.getByLabel('Choices, one per line'))).toBe('must be a non-empty array of non-empty strings');
  await form.getByLabel('Type').selectOption({ label: 'items: rate each dish of the order' });
  expect(await form.getByLabel('Title (the question)').inputValue()).toBe('Rate what you ate');
  expect(await form.locator('.field-error, .failure').count()).toBe(0); // the refusal was of the choices, gone now
  expect(await form.getByLabel('Each dish is rated').inputValue()).toBe('5');
  await form.getByLabel('Each dish is rated').selectOption({ label: 'Thumbs up or down (counted as 5 or 1)' });
  await checkPortalScreen(page, 'survey-editor-items');
  await form.getByRole('button', { name: 'Add step' }).click();
  const listed = page.locator('ol.steps > li').first();
  await listed.waitFor();
  await expect(listed.locator('.step-head').textContent()).resolves.toContain('1. Rate what you ate items, required: each dish thumbs up or down');
  const steps = async () => (await server.orm.em.fork().find(SurveyStep, { survey })).map((s) => ({ type: s.type, required: s.required, content: s.content }));
  expect(await steps()).toEqual([{ type: 'items', required: true, content: { title: 'Rate what you ate', scale: 'thumbs' } }]);

  // A guest with an order of two dishes is asked about each, thumbs up or down.
  await api(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
    i: {
      externalOrderId: 'KG-1',
      total: 2400,
      currency: 'PKR',
      items: [
        { name: 'Chicken Karahi', quantity: 1 },
        { name: 'Garlic Naan', quantity: 2 },
      ],
    },
  });
  const guest = await newPage(PHONE);
  await guest.page.goto(`${server.url}/survey/${tenant.businessId}/${survey}?custom.customOrderId=KG-1`);
  expect(await guest.page.getByRole('heading', { level: 1 }).textContent()).toBe('Rate what you ate');
  for (const dish of ['Chicken Karahi', 'Garlic Naan']) {
    expect(
      await guest.page
        .getByRole('group', { name: new RegExp(dish) })
        .getByRole('radio')
        .evaluateAll((radios) => radios.map((r) => (r as HTMLInputElement).labels?.[0]?.textContent?.trim())),
    ).toEqual(['👍 Good', '👎 Not good']);
  }

  // Edited to 1 to 5, and not required.
  await listed.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit step 1' });
  expect(await edit.getByLabel('Each dish is rated').inputValue()).toBe('thumbs');
  await edit.getByLabel('Each dish is rated').selectOption('5');
  await edit.getByLabel('Guests must answer it').uncheck();
  await edit.getByRole('button', { name: 'Save step' }).click();
  await listed.locator('.step-head').filter({ hasText: '1. Rate what you ate items: each dish from 1 to 5' }).waitFor();
  expect(await steps()).toEqual([{ type: 'items', required: false, content: { title: 'Rate what you ate', scale: '5' } }]);
  await guest.page.reload();
  expect(
    await guest.page
      .getByRole('group', { name: /Garlic Naan/ })
      .getByRole('radio')
      .count(),
  ).toBe(5);
  await untilNextPage(guest.page, async () => {
    await guest.page
      .getByRole('group', { name: /Garlic Naan/ })
      .getByLabel('2', { exact: true })
      .check();
    await guest.page.getByRole('button', { name: 'Submit' }).click();
  });
  expect(await guest.page.getByRole('heading', { level: 1 }).textContent()).toBe('Thank you');

  // Deleted.
  await listed.getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('form', { name: 'Edit step 1' }).getByRole('button', { name: 'Delete step' }).click();
  await page.getByText('No step yet').waitFor();
  expect(await steps()).toEqual([]);
}, 120_000);

it("a new survey offers its guests the owner's language only; adding Urdu in the editor offers both; an info step asks nothing", async () => {
  const page = await signedIn(tenant, '/portal/surveys/new', { locale: 'en-GB' });
  const settings = page.getByRole('form', { name: 'Survey settings' });
  const languages = settings.getByRole('group', { name: 'Languages of the guest page' });
  expect(await languages.getByLabel('English').isChecked()).toBe(true);
  expect(await languages.getByLabel('Urdu (اردو)').isChecked()).toBe(false);
  // None chosen is refused beside the choice; what was typed stays.
  await settings.getByLabel('Name').fill('Lunch');
  await languages.getByLabel('English').uncheck();
  await settings.getByRole('button', { name: 'Create survey' }).click();
  await expect(settings.locator('#languages-error').textContent()).resolves.toBe('must name at least one language, or be null for every one');
  expect(await settings.getByLabel('Name').inputValue()).toBe('Lunch');
  await languages.getByLabel('English').check();
  await settings.getByLabel('Status').selectOption('active');
  await settings.getByRole('button', { name: 'Create survey' }).click();
  await page.waitForURL(/\/portal\/surveys\/sur_/);
  const survey = page.url().split('/').pop()!;
  const stored = async () => (await server.orm.em.fork().findOneOrFail(Survey, survey)).languages;
  expect(await stored()).toEqual(['en']);

  // An info step: no "must answer" to tick, stored as not required.
  const form = page.getByRole('form', { name: 'New step' });
  await form.getByLabel('Type').selectOption({ label: 'info: a message, no answer' });
  expect(await form.getByLabel('Guests must answer it').count()).toBe(0);
  await form.getByLabel('Title (the question)').fill('Welcome');
  await form.getByRole('button', { name: 'Add step' }).click();
  await page.locator('ol.steps > li').filter({ hasText: '1. Welcome' }).waitFor();
  expect((await server.orm.em.fork().find(SurveyStep, { survey })).map((s) => [s.type, s.required])).toEqual([['info', false]]);

  // A guest whose phone prefers Urdu still reads this English survey in English, with no other language offered.
  const guest = await newPage({ ...PHONE, locale: 'ur-PK' });
  await guest.page.goto(`${server.url}/survey/${tenant.businessId}/${survey}`);
  expect(await guest.page.locator('html').getAttribute('lang')).toBe('en');
  expect(await guest.page.locator('a[hreflang]').count()).toBe(0);

  // Edited: Urdu added; the same guest now reads Urdu, with a link to English.
  await page.reload();
  await languages.getByLabel('Urdu (اردو)').check();
  await settings.getByRole('button', { name: 'Save survey' }).click();
  await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  expect(await stored()).toEqual(['en', 'ur']);
  // The guest page's cache hears of the change just after its commit: reloaded until it has.
  const langAfterReload = async () => {
    await guest.page.reload();
    return guest.page.locator('html').getAttribute('lang');
  };
  await until(langAfterReload, (lang) => lang === 'ur');
  expect(await guest.page.locator('a[hreflang]').evaluateAll((links) => links.map((l) => l.getAttribute('hreflang')))).toEqual(['en']);
  await checkPortalScreen(page, 'survey-languages');
});

it('a staff member reads the locations and saved replies, is told who may change them, and is offered no control to change them', async () => {
  await api(
    `mutation($b: ID!) { createLocation(business: $b, input: { name: "Clifton", timeZone: "Asia/Karachi", metadata: { externalLocationId: "CLF-1" } }) { id } }`,
  );
  await api(`mutation($b: ID!) { createReplyTemplate(business: $b, input: { name: "Late delivery", body: "Sorry for the wait." }) { id } }`);
  const page = await signedIn(staff, '/portal/locations');
  await page.getByRole('listitem').filter({ hasText: 'Clifton' }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Only owners and managers add, change and delete locations' }).waitFor();
  expect(await page.getByRole('form').count()).toBe(0);
  expect(await page.locator('main').getByRole('button').count()).toBe(0);
  await checkPortalScreen(page, 'locations-as-staff');

  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Saved replies', exact: true }).click();
  await portalLoaded(page);
  await page.getByRole('listitem').filter({ hasText: 'Sorry for the wait.' }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Only owners and managers write, change and delete saved replies' }).waitFor();
  expect(await page.getByRole('form').count()).toBe(0);
  expect(await page.locator('main').getByRole('button').count()).toBe(0);
  await checkPortalScreen(page, 'saved-replies-as-staff');
}, 120_000);
