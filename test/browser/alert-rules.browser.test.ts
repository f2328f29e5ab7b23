import type { Locator, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import type { MailBox } from '../helpers/smtp.js';
import { usePortal, type Person } from '../helpers/portal.js';
import { decodeWords } from '../helpers/mime.js';
import { consentLink } from '../cases/case.fixtures.js';
import { answerConsent } from '../../src/modules/alert/alert-recipient.service.js';
import { checkPortalScreen, errorOf } from '../helpers/browser.js';

/**
 * Issue 49, item 2: alert rules set up in the portal without the API, in Debian's Chromium against a real server,
 * database, workers and SMTP receiver. An owner's rule is refused with each error beside its field (nothing typed
 * lost), then made, edited (threshold, a location, a survey, an outside address asked to confirm by e-mail), turned
 * off and deleted by keyboard, what is stored read back through the API after each; an answer it matches opens a case
 * and one it does not match opens none. A staff member reads the rules with no control to change them.
 */
let server: TestServer;
let tenant: Tenant;
let mail: MailBox;
let staff: Person;
let places: { clifton: string; gulberg: string };
let surveys: { dinner: string; lunch: string };
let npsStep: string;

const { api, signedIn } = usePortal({ business: 'Karachi Grill', staffDomain: 'karachi-grill.example', mail: true, workers: true }, async (portal) => {
  ({ server, tenant, staff, mail } = portal);
  const location = async (name: string) =>
    (await api(`mutation($b: ID!, $n: String!) { createLocation(business: $b, input: { name: $n }) { id } }`, { n: name })).createLocation.id as string;
  places = { clifton: await location('Clifton'), gulberg: await location('Gulberg') };
  const survey = async (name: string) =>
    (await api(`mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: { name: $n, status: active }) { id } }`, { n: name })).createSurvey
      .id as string;
  surveys = { dinner: await survey('Dinner'), lunch: await survey('Lunch') };
  npsStep = (
    await api(
      `mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: { type: nps, content: { title: "Would you recommend us?" } }) { id } }`,
      { s: surveys.dinner },
    )
  ).createSurveyStep.id;
});

/** The rules as stored, read back through the API. */
const storedRules = async () =>
  (
    await api(
      `query($b: ID!) { alertRules(business: $b) { data { name enabled severity escalateAfterMinutes when { maxRating maxNps keywords locations surveys } notify { channel to role status askedAt } } } }`,
    )
  ).alertRules.data;

/** The cases opened so far, each with the rule that opened it. */
const cases = async () =>
  (await api(`query($b: ID!) { cases(business: $b) { data { rule severity } } }`)).cases.data as { rule: string | null; severity: string }[];

/** A guest's completed answer to Dinner's NPS question at a location. */
const answer = (nps: number, location: string) =>
  api(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
    s: surveys.dinner,
    i: { location, answers: [{ step: npsStep, value: nps }] },
  });

/** Waits until a rule's card shows `facts` (its list reloads after the change is said done), then checks nothing else is there. */
async function factsRead(card: Locator, facts: string) {
  await card.locator('dl').first().filter({ hasText: facts }).waitFor();
  expect(await card.locator('dl').first().textContent()).toBe(facts);
}

/** Waits until the focus is on the control labelled `label` (aria-label, else its text): the portal moves it after rendering. */
const focusOn = (page: Page, label: string) =>
  page.waitForFunction((l) => (document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent) === l, label);

it('an owner, from the empty Inbox, makes a rule (refused first, each error beside its field), edits it, sees it open a case, turns it off and deletes it by keyboard', async () => {
  const page = await signedIn(tenant, '/portal/cases');
  await page.getByRole('link', { name: 'alert rules', exact: true }).click();
  await page.waitForURL(`${server.url}/portal/alerts`);
  await page.getByText('No alert rule yet').waitFor();
  const form = page.getByRole('form', { name: 'New alert rule' });

  // A threshold that is not a number is said beside it before anything is sent.
  await form.getByLabel('A rating of at most').fill('two');
  await form.getByRole('button', { name: 'Add alert rule' }).click();
  expect(await errorOf(page, form.getByLabel('A rating of at most'))).toBe('must be a whole number');
  await form.getByLabel('A rating of at most').fill('');

  // No name, no condition, a phone number not in E.164: each of the API's refusals beside its own field.
  await form.getByLabel('Every owner, at their account’s e-mail').uncheck();
  await form.getByRole('button', { name: 'Add an e-mail address or phone number' }).click();
  await form.getByLabel('Recipient 1 is told by').selectOption('sms');
  await form.getByLabel('Recipient 1’s phone number').fill('0300 123');
  await form.getByRole('button', { name: 'Add alert rule' }).click();
  await form.locator('.field-error').first().waitFor();
  expect(await errorOf(page, form.getByLabel('Name'))).toBe('must not be empty');
  expect(await form.getByRole('group', { name: 'When (any one of these)' }).locator(':scope > .field-error').textContent()).toBe(
    'give at least one: a rating, an NPS answer, a word or a theme',
  );
  expect(await errorOf(page, form.getByLabel('Recipient 1’s phone number'))).toBe('must be a phone number in E.164 (+923001234567)');
  expect(await form.getByLabel('Recipient 1’s phone number').inputValue()).toBe('0300 123');
  await form.getByRole('alert').filter({ hasText: 'Please correct the highlighted fields.' }).waitFor();
  await checkPortalScreen(page, 'alert-rules-field-errors');

  // Too many words, one of them no word at all: both said beside the words, all 52 lines kept.
  const words = [...Array.from({ length: 50 }, (_, i) => `word${i}`), '!!!', 'cold'].join('\n');
  await form.getByLabel('Name').fill('Unhappy diners');
  await form.getByLabel(/^Or a text answer/).fill(words);
  await form.getByRole('button', { name: 'Remove recipient 1' }).click();
  await form.getByLabel('Every owner, at their account’s e-mail').check();
  await form.getByRole('button', { name: 'Add alert rule' }).click();
  await form.locator('.field-error').first().waitFor();
  expect(await errorOf(page, form.getByLabel(/^Or a text answer/))).toBe('at most 50 keywords; “!!!” must hold a word (letters or digits)');
  expect(await form.getByLabel(/^Or a text answer/).inputValue()).toBe(words);
  expect(await storedRules()).toEqual([]);

  // Corrected: an NPS of 4 or less, or two words; the owners told.
  await form.getByLabel('An NPS answer of at most').fill('4');
  await form.getByLabel(/^Or a text answer/).fill('cold\nrude');
  await form.getByLabel('Name').press('Enter');
  await page.getByRole('status').filter({ hasText: 'Unhappy diners added.' }).waitFor();
  expect(await storedRules()).toEqual([
    {
      name: 'Unhappy diners',
      enabled: true,
      severity: 'normal',
      escalateAfterMinutes: null,
      when: { maxRating: null, maxNps: 4, keywords: ['cold', 'rude'], locations: null, surveys: null },
      notify: [{ channel: null, to: null, role: 'owner', status: 'member', askedAt: null }],
    },
  ]);
  const card = page.getByRole('list', { name: 'Alert rules' }).getByRole('listitem').filter({ hasText: 'Unhappy diners' });
  await factsRead(
    card,
    'StatusonSeverityNormalWhenAn NPS answer of 4 or less or a text answer with “cold” or “rude”LocationsEvery locationSurveysEvery survey' +
      'Who is toldEvery owner, at their account’s e-mail: told at once (members need no confirmation)',
  );
  expect(await form.getByLabel('Name').inputValue()).toBe('');
  await checkPortalScreen(page, 'alert-rules');

  // Edited: NPS 6 or less, urgent after 30 minutes, only Clifton's Dinner answers, and the chef by e-mail.
  const chef = `chef-${Date.now()}@example.com`;
  await card.getByRole('button', { name: 'Edit Unhappy diners' }).click();
  const edit = page.getByRole('form', { name: 'Edit Unhappy diners' });
  expect(await edit.getByLabel('An NPS answer of at most').inputValue()).toBe('4');
  await edit.getByLabel('An NPS answer of at most').fill('6');
  await edit.getByLabel('Severity').selectOption('urgent');
  await edit.getByLabel('Tell the owners after (minutes, optional)').fill('30');
  await edit.getByRole('group', { name: 'Only at these locations' }).getByLabel('Clifton').check();
  await edit.getByRole('group', { name: 'Only for these surveys' }).getByLabel('Dinner').check();
  await edit.getByRole('button', { name: 'Add an e-mail address or phone number' }).click();
  await edit.getByLabel('Recipient 1’s e-mail address').fill(` ${chef.toUpperCase()} `);
  await checkPortalScreen(page, 'alert-rule-edit');
  await edit.getByRole('button', { name: 'Save rule' }).click();
  await page.getByRole('status').filter({ hasText: 'Unhappy diners saved.' }).waitFor();
  const edited = await storedRules();
  expect(edited).toEqual([
    {
      name: 'Unhappy diners',
      enabled: true,
      severity: 'urgent',
      escalateAfterMinutes: 30,
      when: { maxRating: null, maxNps: 6, keywords: ['cold', 'rude'], locations: [places.clifton], surveys: [surveys.dinner] },
      notify: [
        { channel: null, to: null, role: 'owner', status: 'member', askedAt: null },
        { channel: 'email', to: chef, role: null, status: 'pending', askedAt: expect.any(Number) },
      ],
    },
  ]);
  const asked = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'medium' }).format(edited[0].notify[1].askedAt);
  await factsRead(
    card,
    'StatusonSeverityUrgent: the owners are told if its case is still open and unassigned after 30 minutes' +
      'WhenAn NPS answer of 6 or less or a text answer with “cold” or “rude”LocationsCliftonSurveysDinner' +
      `Who is toldEvery owner, at their account’s e-mail: told at once (members need no confirmation)` +
      `${chef} by e-mail: waiting for them to confirm (asked on ${asked}): told nothing until they agree`,
  );
  // The chef was asked, by one e-mail naming the business, with the link to agree.
  const confirmation = await mail.waitFor((m) => m.to.includes(chef), 30_000);
  expect(decodeWords(confirmation.subject)).toBe('"Karachi Grill" asks to send you alerts about its guests\' feedback');
  expect(consentLink(server, confirmation.body)).toMatch(/\/alerts\/[A-Za-z0-9_-]+$/);

  // The rule does what the card says: a 5 at Clifton opens an urgent case; a 5 at Gulberg does not.
  const rule = (await api(`query($b: ID!) { alertRules(business: $b) { data { id } } }`)).alertRules.data[0].id;
  await answer(5, places.gulberg);
  expect(await cases()).toEqual([]);
  await answer(5, places.clifton);
  expect(await cases()).toEqual([{ rule, severity: 'urgent' }]);

  // Turned off: stored so, said so on its card, and the same answer opens nothing more.
  await card.getByRole('button', { name: 'Turn off Unhappy diners' }).click();
  await page.getByRole('status').filter({ hasText: 'Unhappy diners turned off.' }).waitFor();
  expect((await storedRules())[0].enabled).toBe(false);
  await card.getByText('off: opens no case until turned on').waitFor();
  await answer(5, places.clifton);
  expect(await cases()).toHaveLength(1);

  // Deleted by keyboard: the question takes the focus, Cancel gives it back, then Delete it.
  const remove = page.getByRole('button', { name: 'Delete Unhappy diners…' });
  await remove.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('Delete Unhappy diners? New answers no longer open cases by it');
  await focusOn(page, 'Cancel');
  await page.keyboard.press('Enter');
  await focusOn(page, 'Delete Unhappy diners…');
  await page.keyboard.press('Enter');
  await focusOn(page, 'Cancel');
  await page.keyboard.press('Shift+Tab');
  await focusOn(page, 'Delete it');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Unhappy diners deleted.' }).waitFor();
  await page.getByText('No alert rule yet').waitFor();
  expect(await storedRules()).toEqual([]);
  // The case it opened stays, no longer tied to it.
  expect(await cases()).toEqual([{ rule: null, severity: 'urgent' }]);
}, 180_000);

it('a staff member reads the rules and who is told, is told who may change them, and is offered no control to change them', async () => {
  const [agrees, refuses] = [`area-${Date.now()}@example.com`, `old-chef-${Date.now()}@example.com`];
  await api(`mutation($b: ID!, $i: CreateAlertRuleInput!) { createAlertRule(business: $b, input: $i) { id } }`, {
    i: {
      name: 'Food safety',
      when: { keywords: ['allergic'] },
      notify: [{ role: 'manager' }, { channel: 'sms', to: '+923001234567' }, { channel: 'email', to: agrees }, { channel: 'email', to: refuses }],
    },
  });
  // One agrees and one refuses, each from the link of their confirmation e-mail, as the confirmation page does.
  for (const [to, answer] of [
    [agrees, 'confirmed'],
    [refuses, 'declined'],
  ] as const) {
    const token = consentLink(server, (await mail.waitFor((m) => m.to.includes(to), 30_000)).body)
      .split('/')
      .pop()!;
    await answerConsent(server.orm.em.fork(), token, answer);
  }
  const page = await signedIn(staff, '/portal/alerts');
  const card = page.getByRole('listitem').filter({ hasText: 'Food safety' });
  await card.waitFor();
  // The days as stored, in the business's zone (none set: UTC) and locale (none: en-GB).
  const notify = (
    await api(`query($b: ID!) { alertRules(business: $b, where: { name: { eq: "Food safety" } }) { data { notify { status confirmedAt askedAt } } } }`)
  ).alertRules.data[0].notify;
  expect(notify.map((n: { status: string }) => n.status)).toEqual(['member', 'pending', 'confirmed', 'declined']);
  const day = (ms: number) => new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'medium' }).format(ms);
  expect(await card.locator('ul.recipients > li').allTextContents()).toEqual([
    'Every manager, at their account’s e-mail: told at once (members need no confirmation)',
    `+923001234567 by SMS: waiting for them to confirm (asked on ${day(notify[1].askedAt)}): told nothing until they agree`,
    `${agrees} by e-mail: confirmed on ${day(notify[2].confirmedAt)}: told of each match`,
    `${refuses} by e-mail: declined: this business never messages them again`,
  ]);
  await page.getByRole('note').filter({ hasText: 'Only owners and managers add, change, turn off and delete alert rules' }).waitFor();
  expect(await page.getByRole('form').count()).toBe(0);
  expect(await page.locator('main').getByRole('button').count()).toBe(0);
  await checkPortalScreen(page, 'alert-rules-as-staff');
}, 120_000);

it('a rule on themes made through the API reads as such in the portal, saving it there keeps its themes, and its themes are edited there', async () => {
  const made = await api(
    `mutation($b: ID!) { createAlertRule(business: $b, input: {name: "Dirty tables", when: {themes: ["cleanliness"], sentiment: "negative"}, notify: [{role: "owner"}]}) { id } }`,
  );
  const page = await signedIn(tenant, '/portal/alerts');
  const card = page.getByRole('list', { name: 'Alert rules' }).getByRole('listitem').filter({ hasText: 'Dirty tables' });
  await card.getByText('A text answer read as negative on cleanliness').waitFor();
  await card.getByRole('button', { name: 'Edit Dirty tables' }).click();
  const edit = page.getByRole('form', { name: 'Edit Dirty tables' });
  await edit.getByLabel('Name').fill('Dirty tables and floors');
  await edit.getByRole('button', { name: 'Save rule' }).click();
  await page.getByRole('status').filter({ hasText: 'Dirty tables and floors saved.' }).waitFor();
  const stored = await api(`query($b: ID!, $id: ID!) { alertRule(business: $b, id: $id) { name when { themes sentiment maxRating keywords } } }`, {
    id: made.createAlertRule.id,
  });
  expect(stored.alertRule).toEqual({
    name: 'Dirty tables and floors',
    when: { themes: ['cleanliness'], sentiment: 'negative', maxRating: null, keywords: null },
  });
  await card.getByText('A text answer read as negative on cleanliness').waitFor();

  // Its themes edited in the form: food and speed instead, of any sentiment; the card and the stored rule say so.
  await card.getByRole('button', { name: 'Edit Dirty tables and floors' }).click();
  const again = page.getByRole('form', { name: 'Edit Dirty tables and floors' });
  const themes = again.getByRole('group', { name: 'Or a text answer read as speaking of these themes' });
  expect(await themes.getByLabel('cleanliness').isChecked()).toBe(true);
  expect(await themes.getByLabel('Read as').inputValue()).toBe('negative');
  await themes.getByLabel('cleanliness').uncheck();
  await themes.getByLabel('food').check();
  await themes.getByLabel('speed').check();
  await themes.getByLabel('Read as').selectOption('');
  await checkPortalScreen(page, 'alert-rule-themes');
  await again.getByRole('button', { name: 'Save rule' }).click();
  await page.getByRole('status').filter({ hasText: 'Dirty tables and floors saved.' }).waitFor();
  await card.getByText('A text answer read as food or speed').waitFor();
  const edited = await api(`query($b: ID!, $id: ID!) { alertRule(business: $b, id: $id) { when { themes sentiment } } }`, { id: made.createAlertRule.id });
  expect(edited.alertRule.when).toEqual({ themes: ['food', 'speed'], sentiment: null });
  await api(`mutation($b: ID!, $id: ID!) { deleteAlertRule(business: $b, id: $id) }`, { id: made.createAlertRule.id });

  // A new rule on a theme, made in the form: negative comments on food.
  const form = page.getByRole('form', { name: 'New alert rule' });
  await form.getByLabel('Name').fill('Cold food');
  const choose = form.getByRole('group', { name: 'Or a text answer read as speaking of these themes' });
  await choose.getByLabel('food').check();
  await choose.getByLabel('Read as').selectOption('negative');
  await form.getByRole('button', { name: 'Add alert rule' }).click();
  await page.getByRole('status').filter({ hasText: 'Cold food added.' }).waitFor();
  await page
    .getByRole('list', { name: 'Alert rules' })
    .getByRole('listitem')
    .filter({ hasText: 'Cold food' })
    .getByText('A text answer read as negative on food')
    .waitFor();
  const rules = await api(
    `query($b: ID!) { alertRules(business: $b, where: { name: { eq: "Cold food" } }) { data { id when { themes sentiment maxRating maxNps keywords } } } }`,
  );
  expect(rules.alertRules.data[0].when).toEqual({ themes: ['food'], sentiment: 'negative', maxRating: null, maxNps: null, keywords: null });
  await api(`mutation($b: ID!, $id: ID!) { deleteAlertRule(business: $b, id: $id) }`, { id: rules.alertRules.data[0].id });
}, 120_000);
