import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { usePortal, type Person } from '../helpers/portal.js';
import { checkPortalScreen, errorOf, signedInAt, tabTo } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

/**
 * Issue 52, item 5: what guests write, read in the portal, in Debian's Chromium against a real server, database and
 * workers (which read each comment within seconds). Twelve comments on cleanliness (ten negative, in two surveys) and
 * one on food and speed: the Themes screen splits and words them (a theme of one comment "too few to judge yet"),
 * shows a theme's comments with its words marked and leads to its feedback, by keyboard and on a phone; the feedback
 * and the case page carry the themes read in each answer; an empty business says why it has no themes. An owner adds
 * a theme of her own in Theme settings (refused first, beside the fields), a new comment is read with it, and she
 * edits it; a staff member reads the settings without a control to change them.
 */
let server: TestServer;
let tenant: Tenant;
let staff: Person;
let surveys: { dinner: string; lunch: string };
let steps: { dinner: string; lunch: string };
let clifton: string;

const DIRTY = 'The tables were dirty and sticky';
const CLEAN = 'Very clean place, spotless washroom';
const FILTHY = 'The washroom was filthy';
const MIXED = 'Food was great lekin service slow thi';

const { newPage, api, signedIn } = usePortal({ business: 'Clifton Karahi', staffDomain: 'clifton-karahi.example', workers: true }, (portal) => {
  ({ server, tenant, staff } = portal);
  return seed();
});

const survey = async (who: Tenant, name: string) =>
  (await api(`mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: { name: $n, status: active }) { id } }`, { n: name }, who)).createSurvey
    .id as string;
const textStep = async (who: Tenant, s: string) =>
  (
    await api(
      `mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: { type: text, content: { title: "Anything else?" } }) { id } }`,
      { s },
      who,
    )
  ).createSurveyStep.id as string;
/** A guest's completed comment, through the API. */
const comment = async (who: Tenant, s: string, step: string, text: string, location?: string) =>
  (
    await api(
      `mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`,
      { s, i: { ...(location ? { location } : {}), answers: [{ step, value: text }] } },
      who,
    )
  ).createSubmission.id as string;
/** The themes the workers read in a submission's answers, once they have read it. */
const analysed = (who: Tenant, s: string, id: string) =>
  until(
    async () =>
      (
        await api(
          `query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { analysis { themes { theme sentiment words } } } }`,
          { s, id },
          who,
        )
      ).submission.analysis,
    (a: unknown[]) => a.length > 0,
  );

async function seed() {
  surveys = { dinner: await survey(tenant, 'Dinner'), lunch: await survey(tenant, 'Lunch') };
  steps = { dinner: await textStep(tenant, surveys.dinner), lunch: await textStep(tenant, surveys.lunch) };
  clifton = (await api(`mutation($b: ID!) { createLocation(business: $b, input: { name: "Clifton" }) { id } }`)).createLocation.id;
  // Negative comments on cleanliness open a case: its page shows the themes too.
  await api(
    `mutation($b: ID!) { createAlertRule(business: $b, input: { name: "Dirty tables", when: { themes: ["cleanliness"], sentiment: "negative" }, notify: [{ role: "owner" }] }) { id } }`,
  );
  const made: [string, string][] = [];
  for (let i = 0; i < 8; i++) made.push([surveys.dinner, await comment(tenant, surveys.dinner, steps.dinner, DIRTY, clifton)]);
  for (let i = 0; i < 2; i++) made.push([surveys.dinner, await comment(tenant, surveys.dinner, steps.dinner, CLEAN, clifton)]);
  for (let i = 0; i < 2; i++) made.push([surveys.lunch, await comment(tenant, surveys.lunch, steps.lunch, FILTHY)]);
  made.push([surveys.lunch, await comment(tenant, surveys.lunch, steps.lunch, MIXED)]);
  for (const [s, id] of made) await analysed(tenant, s, id);
}

/** The marked words of each example comment of a section. */
const marksOf = (page: Page, section: string) =>
  page
    .getByTestId(section)
    .locator('ul.examples blockquote')
    .evaluateAll((quotes) => quotes.map((q) => ({ text: q.textContent, marked: Array.from(q.querySelectorAll('mark'), (m) => m.textContent) })));

it('the Themes screen splits each theme, shows a theme’s trend and comments with its words marked, and leads to its feedback, by keyboard and on a phone', async () => {
  const page = await signedIn(tenant, '/portal');
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Themes', exact: true }).click();
  await page.waitForURL(`${server.url}/portal/themes`);
  const table = page.getByRole('table', { name: /^Themes of the comments from / });
  await table.waitFor();
  // Most spoken of first; cleanliness's twelve comments judged, one comment on food or speed counted first.
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((r) => Array.from(r.querySelectorAll('th, td'), (c) => c.textContent)));
  expect(rows).toEqual([
    ['cleanliness', '12', '83% negative, 17% positive', 'too few to compare'],
    ['food', '1', '1 comment too few to judge yet (so far 1 positive)', 'too few to compare'],
    ['speed', '1', '1 comment too few to judge yet (so far 1 negative)', 'too few to compare'],
  ]);
  await checkPortalScreen(page, 'themes');

  // By keyboard: to cleanliness's link, Enter; its heading takes the focus.
  await tabTo(page, 'table a[href*="theme=cleanliness"]');
  await page.keyboard.press('Enter');
  await page.waitForURL(/theme=cleanliness/);
  await page.waitForFunction(() => document.activeElement?.textContent === 'cleanliness' && document.activeElement.tagName === 'H2');
  const detail = page.getByTestId('theme-detail');
  await detail.getByText('12 comments: 10 negative, 2 positive.').waitFor();
  await page.locator('[data-testid="chart-cleanliness-comments"][data-drawn]').waitFor();
  // The words guests use most in each sentiment, with how many comments used them.
  expect(await page.getByRole('list', { name: 'Words guests use most in negative comments on cleanliness' }).getByRole('listitem').allTextContents()).toEqual([
    'dirty (8)',
    'sticky (8)',
    'filthy (2)',
    'washroom (2)',
  ]);
  expect(await page.getByRole('list', { name: 'Words guests use most in positive comments on cleanliness' }).getByRole('listitem').allTextContents()).toEqual([
    'clean (2)',
    'spotless (2)',
    'washroom (2)',
  ]);
  // The latest three negative comments and both positive ones, the theme's words marked.
  await page.getByTestId('examples-negative').locator('ul.examples').waitFor();
  await page.getByTestId('examples-positive').locator('ul.examples').waitFor();
  expect(await marksOf(page, 'examples-negative')).toEqual([
    { text: FILTHY, marked: ['washroom', 'filthy'] },
    { text: FILTHY, marked: ['washroom', 'filthy'] },
    { text: DIRTY, marked: ['dirty', 'sticky'] },
  ]);
  expect(await marksOf(page, 'examples-positive')).toEqual([
    { text: CLEAN, marked: ['clean', 'spotless', 'washroom'] },
    { text: CLEAN, marked: ['clean', 'spotless', 'washroom'] },
  ]);
  // The way to every one of them, per survey, with how many each holds.
  const links = page.getByTestId('examples-negative').locator('p.feedback-links a');
  expect(await links.allTextContents()).toEqual(['Dinner (8)', 'Lunch (2)']);
  await checkPortalScreen(page, 'themes-cleanliness');

  // On a phone, by keyboard: the link to Dinner's negative comments on cleanliness opens the Feedback list so filtered.
  await page.setViewportSize({ width: 390, height: 844 });
  await tabTo(page, '[data-testid="examples-negative"] p.feedback-links a');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/portal\/feedback\?/);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toEqual({
    survey: surveys.dinner,
    from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    to: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    theme: 'cleanliness',
    sentiment: 'negative',
  });
  const list = page.getByRole('table', { name: 'Feedback for Dinner' });
  await list.waitFor();
  // Each answer with the themes read in it, readable without colour.
  await until(
    () => list.locator('tbody tr').count(),
    (n) => n === 8,
  );
  expect(await list.locator('tbody tr ul.chips').first().textContent()).toBe('cleanliness · negative');
  expect(await list.locator('tbody tr').filter({ hasText: CLEAN }).count()).toBe(0);
  // The filters say so, and change it: positive comments on cleanliness, then any theme again.
  const filters = page.getByRole('form', { name: 'Filters' });
  expect(await filters.getByLabel('Theme', { exact: true }).inputValue()).toBe('cleanliness');
  expect(await filters.getByLabel('Theme read as').inputValue()).toBe('negative');
  await filters.getByLabel('Theme read as').selectOption('positive');
  await until(
    () => list.locator('tbody tr').count(),
    (n) => n === 2,
  );
  expect(await list.locator('tbody tr ul.chips').allTextContents()).toEqual(['cleanliness · positive', 'cleanliness · positive']);
  await filters.getByLabel('Theme', { exact: true }).selectOption('');
  await until(
    () => list.locator('tbody tr').count(),
    (n) => n === 10,
  );
  expect(await filters.getByLabel('Theme read as').count()).toBe(0);
  expect(new URL(page.url()).searchParams.has('sentiment')).toBe(false);
  await checkPortalScreen(page, 'feedback-by-theme');
}, 180_000);

it('the feedback page and the case page show the themes read in each text answer', async () => {
  const cases = (await api(`query($b: ID!) { cases(business: $b, pageSize: 1) { data { id } } }`)).cases.data;
  const page = await signedIn(tenant, `/portal/cases/${cases[0].id}`);
  const answers = page.locator('dl.answers');
  await answers.locator('ul.chips').waitFor();
  expect(await answers.locator('ul.chips li').allTextContents()).toEqual(['cleanliness · negative']);
  await checkPortalScreen(page, 'case-themes');
  await page.getByRole('link', { name: 'Open the feedback' }).click();
  await page.getByRole('heading', { name: /^Feedback of / }).waitFor();
  await page.locator('dl.answers ul.chips').waitFor();
  expect(await page.locator('dl.answers ul.chips li').allTextContents()).toEqual(['cleanliness · negative']);
  // The food-and-speed comment: a chip per theme, each with its own sentiment.
  const mixed = (await api(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, pageSize: 1) { data { id } } }`, { s: surveys.lunch })).submissions
    .data[0].id;
  await page.goto(`${server.url}/portal/feedback/${surveys.lunch}/${mixed}`);
  await page.locator('dl.answers ul.chips').waitFor();
  expect(await page.locator('dl.answers ul.chips li').allTextContents()).toEqual(['food · positive', 'speed · negative']);
  await checkPortalScreen(page, 'feedback-themes');
}, 120_000);

it('a business with no themes says why: no survey asks for a comment, no comment yet, comments not analysed yet; then they are read', async () => {
  const empty = await createTenant(server, { businessName: 'Empty Dhaba' });
  const page = await signedIn(empty, '/portal/themes');
  await page.getByText('No survey asks guests for a comment (there is no survey yet)').waitFor();
  await checkPortalScreen(page, 'themes-no-survey');

  const s = await survey(empty, 'Takeaway');
  const step = await textStep(empty, s);
  await page.reload();
  await page.getByText(/^No comments yet between /).waitFor();
  await checkPortalScreen(page, 'themes-no-comments');

  // A comment stored before the service read comments: no analysis, nothing counted (taken away here, once read).
  const id = await comment(empty, s, step, 'Khana bohat thanda tha');
  await analysed(empty, s, id);
  const connection = server.orm.em.fork().getConnection();
  for (const table of ['answer_analysis', 'answer_theme', 'analytics_theme_rollup', 'analytics_theme_word_rollup']) {
    await connection.execute(`delete from ${table} where business_id = ?`, [empty.businessId]);
  }
  await page.reload();
  await page.getByRole('status').filter({ hasText: '1 comment between' }).waitFor();
  expect(await page.getByRole('status').filter({ hasText: '1 comment between' }).textContent()).toMatch(
    /is not analysed yet\. New comments are read within seconds/,
  );
  await checkPortalScreen(page, 'themes-not-analysed');

  // A change of theme settings reads the month's comments again: the page, looking again by itself, shows the theme.
  await api(`mutation($b: ID!) { updateThemeSettings(business: $b, input: { off: ["ambience"] }) { reanalysing } }`, {}, empty);
  const table = page.getByRole('table', { name: /^Themes of the comments from / });
  await table.waitFor({ timeout: 30_000 });
  expect(await table.locator('tbody tr th').allTextContents()).toEqual(['food']);
}, 120_000);

/** The theme settings as stored, read back through the API. */
const storedSettings = async () => (await api(`query($b: ID!) { themeSettings(business: $b) { words { theme language words } off } }`)).themeSettings;

it('an owner adds a theme of her own (refused first, beside the fields), a new comment is read with it, and she edits it', async () => {
  const page = await signedIn(tenant, '/portal/themes');
  await page.getByRole('link', { name: 'Theme settings' }).first().click();
  await page.waitForURL(`${server.url}/portal/themes/settings`);
  const form = page.getByRole('form', { name: 'Theme settings' });
  await form.locator('details[data-theme="cleanliness"]').waitFor();
  await checkPortalScreen(page, 'theme-settings');

  // A new theme, its name not one and no word given: each refusal beside its field, nothing typed lost.
  await form.getByRole('button', { name: 'Add a theme of your own' }).click();
  const name = form.getByLabel('Theme name');
  await page.waitForFunction(
    () => document.activeElement?.tagName === 'INPUT' && document.activeElement.closest('.field')?.textContent?.startsWith('Theme name'),
  );
  await name.fill('Parking lot!');
  await form.getByRole('button', { name: 'Save theme settings' }).click();
  await form.locator('.field-error').first().waitFor();
  expect(await errorOf(page, name)).toBe('must be 2 to 30 lower-case letters, digits or hyphens, starting with a letter (such as `parking`)');
  expect(await errorOf(page, form.getByLabel('A new theme: words in English').or(form.getByLabel('Parking lot!: words in English')))).toBe(
    'must hold at least one word',
  );
  expect(await name.inputValue()).toBe('Parking lot!');
  await form.getByRole('alert').filter({ hasText: 'Please correct the highlighted fields.' }).waitFor();
  await checkPortalScreen(page, 'theme-settings-refused');
  expect(await storedSettings()).toEqual({ words: [], off: [] });

  // Corrected: parking, with "valet" in English; saved, and the month's comments read again.
  await name.fill('parking');
  await form.getByLabel('parking: words in English').fill('valet\n');
  await form.getByRole('button', { name: 'Save theme settings' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Saved: new comments are read with these words from now on, and 13 responses of the last 30 days are being read again\.$/ })
    .waitFor();
  expect(await storedSettings()).toEqual({ words: [{ theme: 'parking', language: 'en', words: ['valet'] }], off: [] });

  // A guest's new comment is read with it: its feedback shows parking, negative.
  const id = await comment(tenant, surveys.dinner, steps.dinner, 'Valet was terrible');
  expect(await analysed(tenant, surveys.dinner, id)).toEqual([{ themes: [{ theme: 'parking', sentiment: 'negative', words: ['valet', 'terrible'] }] }]);
  const feedback = await newPage();
  await signedInAt(feedback.page, `${server.url}/portal/feedback/${surveys.dinner}/${id}`, tenant);
  await feedback.page.locator('dl.answers ul.chips').waitFor();
  expect(await feedback.page.locator('dl.answers ul.chips li').allTextContents()).toEqual(['parking · negative']);

  // Edited: a Roman Urdu word for parking, and ambience switched off; the form shows what was stored.
  await page.reload();
  await form.locator('details[data-theme="parking"]').waitFor();
  await form.getByLabel('parking: words in Roman Urdu').fill('gari\nparking wala');
  await form.locator('details[data-theme="ambience"] summary').click();
  await form.getByLabel('Read comments for ambience').uncheck();
  await form.getByRole('button', { name: 'Save theme settings' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Saved: / })
    .waitFor();
  expect(await storedSettings()).toEqual({
    words: [
      { theme: 'parking', language: 'en', words: ['valet'] },
      { theme: 'parking', language: 'ur-Latn', words: ['gari', 'parking wala'] },
    ],
    off: ['ambience'],
  });
  expect(await form.locator('details[data-theme="ambience"] summary').textContent()).toBe('ambience built in · switched off · 0 words of yours');
  expect(await form.locator('details[data-theme="parking"] summary').textContent()).toBe('parking your own · read · 3 words of yours');
  await checkPortalScreen(page, 'theme-settings-saved');
}, 180_000);

it('a staff member reads the theme settings, is told who may change them, and is offered no control to change them', async () => {
  const page = await signedIn(staff, '/portal/themes/settings');
  await page.getByRole('note').filter({ hasText: 'Only owners and managers change the theme words. You can read them here.' }).waitFor();
  const form = page.getByRole('form', { name: 'Theme settings' });
  await form.locator('details[data-theme="parking"]').waitFor();
  expect(await form.getByLabel('parking: words in English').isDisabled()).toBe(true);
  expect(await page.locator('main').getByRole('button').count()).toBe(0);
  await checkPortalScreen(page, 'theme-settings-as-staff');
}, 120_000);
