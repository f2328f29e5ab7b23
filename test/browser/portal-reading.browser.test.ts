import fs from 'node:fs';
import type { Download, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { usePortal } from '../helpers/portal.js';
import { Business } from '../../src/modules/business/business.entity.js';
import { checkPortalScreen } from '../helpers/browser.js';

/**
 * Issue 49, item 3: what an owner reads on the Overview and takes away from it, in the portal, in Debian's Chromium
 * against a real server and database. Twelve guests answered through the API, each rating four dishes of their order
 * (two of them three more dishes), two of them unhappy enough to open a case, both back with a next order (in PKR and
 * in USD). The Overview shows the best and lowest rated dishes with their averages and counts, says how many dishes
 * wait for 10 ratings, shows the recovered revenue per currency beside the recovery rate, and words a figure of two
 * ratings as too few to judge; its CSV and the Feedback's have named columns and times on the business's clock.
 */
let server: TestServer;
let tenant: Tenant;
let survey: string;
const ZONE = 'Asia/Karachi';
/** Each order's dishes and the rating every guest gave them (5 of 5 ... 1 of 5). */
const RANKED = { 'Chicken Biryani': 5, 'Mutton Karahi': 4, 'Garlic Naan': 3, Raita: 2 } as const;
/** Rated by only two guests: fewer than 10 ratings, so not ranked. */
const FEW = { Kheer: 5, Lassi: 1, Samosa: 4 } as const;
const GUESTS = 12;
const created: { id: string; createdAt: number }[] = [];

const { api, signedIn: signedInAs } = usePortal({ business: 'Lahore Tikka House' }, async (portal) => {
  ({ server, tenant } = portal);
  // The business's clock (UTC+5, no summer time): the CSV's times are read on it.
  await server.orm.em.fork().nativeUpdate(Business, { id: tenant.businessId }, { timeZone: ZONE });
  await seed();
});

async function seed() {
  const metric = async (name: string) =>
    (await api(`mutation($b: ID!, $n: String!) { createMetric(business: $b, input: { name: $n }) { id } }`, { n: name })).createMetric.id as string;
  const food = await metric('Food');
  const ambiance = await metric('Ambiance');
  survey = (await api(`mutation($b: ID!) { createSurvey(business: $b, input: { name: "Your visit", status: active }) { id } }`)).createSurvey.id;
  const step = async (input: object) =>
    (
      await api(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
        s: survey,
        i: input,
      })
    ).createSurveyStep.id as string;
  const steps = {
    food: await step({ type: 'metrics', required: true, content: { title: 'How was the food?' }, metrics: { metrics: [food] } }),
    // Optional, answered by two guests only: its tile rests on two ratings.
    ambiance: await step({ type: 'metrics', required: false, content: { title: 'And the room?' }, metrics: { metrics: [ambiance] } }),
    dishes: await step({ type: 'items', required: true, content: { title: 'How was each dish?', scale: '5' } }),
    nps: await step({ type: 'nps', required: true, content: { title: 'Would you recommend us?' } }),
    text: await step({ type: 'text', content: { title: 'Anything else?' } }),
  };
  await api(`mutation($b: ID!, $i: CreateAlertRuleInput!) { createAlertRule(business: $b, input: $i) { id } }`, {
    i: { name: 'Cold food', when: { keywords: ['cold'] }, notify: [{ role: 'owner' }] },
  });
  for (let i = 0; i < GUESTS; i++) {
    const dishes = { ...RANKED, ...(i < 2 ? FEW : {}) };
    const order = (
      await api(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id items { name menuItem { id } } } }`, {
        i: {
          externalOrderId: `LT-${i + 1}`,
          total: 2000,
          currency: 'PKR',
          customerPhoneNumber: `+9230011122${String(i).padStart(2, '0')}`,
          items: Object.keys(dishes).map((name) => ({ name, quantity: 1 })),
        },
      })
    ).createOrder;
    const items = Object.fromEntries(order.items.map((line: { name: keyof typeof dishes; menuItem: { id: string } }) => [line.menuItem.id, dishes[line.name]]));
    const answers = [
      { step: steps.food, ratings: { [food]: i % 2 ? 5 : 4 } },
      ...(i < 2 ? [{ step: steps.ambiance, ratings: { [ambiance]: 3 } }] : []),
      { step: steps.dishes, items },
      { step: steps.nps, value: 9 },
      { step: steps.text, value: i < 2 ? 'The naan was cold' : 'Lovely' },
    ];
    const submission = (
      await api(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id createdAt } }`, {
        s: survey,
        i: { order: order.id, answers },
      })
    ).createSubmission;
    created.push(submission);
  }
  // The two unhappy guests come back: each next order recovers their case, one paid in rupees, one in dollars.
  for (const [i, total, currency] of [
    [0, 3500, 'PKR'],
    [1, 25.5, 'USD'],
  ] as const) {
    await api(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      i: {
        externalOrderId: `LT-back-${i}`,
        total,
        currency,
        customerPhoneNumber: `+9230011122${String(i).padStart(2, '0')}`,
        items: [{ name: 'Chicken Biryani', quantity: 1 }],
      },
    });
  }
  const cases = await api(`query($b: ID!) { cases(business: $b) { data { status } } }`);
  expect(cases.cases.data).toEqual([{ status: 'recovered' }, { status: 'recovered' }]);
  // A branch with no feedback of its own, to filter the Overview by.
  await api(`mutation($b: ID!) { createLocation(business: $b, input: { name: "Gulberg", metadata: { externalLocationId: "GUL-01" } }) { id } }`);
}

const signedIn = (path: string) => signedInAs(tenant, path);

/** The lines of a CSV the page downloaded on `click`, split into cells (no cell of these tests holds a comma). */
async function csvOf(page: Page, click: () => Promise<unknown>): Promise<{ name: string; lines: string[][] }> {
  const [file]: [Download, unknown] = await Promise.all([page.waitForEvent('download'), click()]);
  const text = fs.readFileSync((await file.path())!, 'utf8');
  expect(text.endsWith('\r\n')).toBe(true);
  return {
    name: file.suggestedFilename(),
    lines: text
      .trimEnd()
      .split('\r\n')
      .map((line) => line.split(',')),
  };
}

const rowsOf = (page: Page, table: string) =>
  page
    .getByRole('table', { name: table })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));

it('shows the best and lowest rated dishes with their counts, the recovered revenue, and words two ratings as too few', async () => {
  const page = await signedIn('/portal');
  const dishes = page.getByTestId('dishes');
  await dishes.getByRole('table').first().waitFor();
  // Four dishes with 12 ratings each: the two best, then the two lowest from the bottom up.
  await expect(rowsOf(page, 'Best rated dishes')).resolves.toEqual([
    ['Chicken Biryani', '5.0 of 5', '12'],
    ['Mutton Karahi', '4.0 of 5', '12'],
  ]);
  await expect(rowsOf(page, 'Lowest rated dishes')).resolves.toEqual([
    ['Raita', '2.0 of 5', '12'],
    ['Garlic Naan', '3.0 of 5', '12'],
  ]);
  // Kheer's 5 of 5 from two guests tops nothing: it waits, counted, with the two others.
  await expect(dishes.textContent()).resolves.not.toContain('Kheer');
  await expect(page.getByTestId('dishes-waiting').textContent()).resolves.toBe('Dishes with fewer than 10 ratings are not ranked yet: 3 dishes.');

  // Two cases, both recovered: the rate waits for more cases; the revenue they brought back, per currency.
  const unhappy = page.getByTestId('unhappy-guests');
  await unhappy.locator('dl').waitFor();
  // Intl writes a no-break space between a currency code and its amount.
  const figure = async (name: string) => (await unhappy.locator('dl > div').filter({ hasText: name }).textContent())?.replaceAll('\u00a0', ' ');
  await expect(figure('Recovery rate')).resolves.toBe('Recovery rate2 cases too few to judge yet (so far 2 of 2 guests came back)');
  await expect(figure('Recovered revenue')).resolves.toBe('Recovered revenuePKR 3,500 + US$25.50 from the orders of the guests who came back');

  // Small samples: Ambiance rests on two ratings, its count first; Food on twelve, its figure first.
  const tile = (name: string) => page.locator('dl.tiles > div').filter({ hasText: name }).textContent();
  await expect(tile('Ambiance')).resolves.toBe('Ambiance2 ratings too few to judge yet (so far 3.0 / 5)');
  await expect(tile('Food')).resolves.toMatch(/^Food4\.5 \/ 5 from 12 ratings /);
  await expect(tile('Satisfied guests')).resolves.toMatch(/^Satisfied guests \(CSAT\)86% of 14 ratings /);
  await expect(tile('Response rate')).resolves.toMatch(/^Response rate86% of 14 orders got feedback /);
  await page.locator('[data-testid="chart-score-per-metric"][data-drawn]').waitFor();
  await checkPortalScreen(page, 'overview-reading');
}, 120_000);

it("downloads the Overview's figures as a CSV with named columns: a line per day, then the total", async () => {
  const page = await signedIn('/portal');
  await page.locator('dl.tiles').waitFor();
  const { name, lines } = await csvOf(page, () => page.getByRole('button', { name: 'Download CSV' }).click());
  expect(name).toMatch(/^overview-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  expect(lines[0]).toEqual([
    `Day (${ZONE})`,
    'Ratings',
    'CSAT (%)',
    'Food mean (1 to 5)',
    'Food ratings',
    'Ambiance mean (1 to 5)',
    'Ambiance ratings',
    'NPS',
    'NPS answers',
    'Orders',
    'Orders with feedback',
    'Response rate (%)',
    'Cases opened',
    'Guests who came back',
    'Recovery rate (%)',
    'Recovered revenue (PKR)',
    'Recovered revenue (USD)',
  ]);
  // 14 ratings (12 of Food, 4 or 5; 2 of Ambiance, 3), 12 NPS answers of 9, 14 orders (two of them the guests back).
  expect(lines.at(-1)).toEqual(['Total', '14', '85.7', '4.5', '12', '3', '2', '100', '12', '14', '12', '85.7', '2', '2', '100', '3500', '25.5']);
  // Then a line per day the feedback came in, on the business's clock (yyyy-mm-dd), adding up to the total.
  const days = [...new Set(created.map((s) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(s.createdAt)))];
  expect(lines.slice(1, -1).map((l) => l[0])).toEqual(days);
  expect(lines.slice(1, -1).reduce((sum, l) => sum + Number(l[1]), 0)).toBe(14);
}, 120_000);

it('exports the feedback with a column per metric and per dish, its times on the business clock', async () => {
  const page = await signedIn(`/portal/feedback?survey=${survey}`);
  await page.getByRole('row').filter({ hasText: 'completed' }).first().waitFor();
  const { lines } = await csvOf(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
  expect(lines[0]).toEqual([
    'Feedback id',
    `Received (${ZONE})`,
    'Status',
    'Channel',
    'Location',
    'Order',
    'Food',
    'Ambiance',
    'Chicken Biryani',
    'Garlic Naan',
    'Kheer',
    'Lassi',
    'Mutton Karahi',
    'Raita',
    'Samosa',
    'Would you recommend us?',
    'Anything else?',
  ]);
  expect(lines).toHaveLength(GUESTS + 1);
  // The first guest's line: the time five hours ahead of UTC, each rating under its metric's or dish's name.
  const first = lines.find((l) => l[0] === created[0].id)!;
  const karachi = new Date(created[0].createdAt + 5 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  expect(first).toEqual([created[0].id, karachi, 'completed', '', '', 'LT-1', '4', '3', '5', '3', '5', '1', '4', '2', '4', '9', 'The naan was cold']);
  const later = lines.find((l) => l[0] === created[5].id)!;
  expect(later.slice(6)).toEqual(['5', '', '5', '3', '', '', '4', '2', '', '9', 'Lovely']);
}, 120_000);
