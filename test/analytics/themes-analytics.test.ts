import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { client } from '../helpers/graphql.js';
import { rows } from '../ingest/ingest-helpers.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { useRestaurants, type Restaurant } from '../cases/case.fixtures.js';
import { DAY } from './analytics.fixtures.js';

/**
 * Issue 52, item 4 over real HTTP: per theme, the text answers read as speaking of it by sentiment, per day and
 * location, exact after a few analysed answers, in REST, its CSV and GraphQL; another business's figures are a 403;
 * bad parameters a 400 naming them.
 */
jest.setTimeout(90_000);

let server: TestServer;
let r: Restaurant;
let other: Restaurant;
useRestaurants(['Themes Kitchen', 'Other Kitchen'], (...made) => ([server, r, other] = made));

const range = () => `from=${Date.now() - DAY}&to=${Date.now() + DAY}`;
type Counts = Record<string, { positive: number; neutral: number; negative: number }>;

/** What the stored analyses of `ids` say, counted here: the figures the endpoint must give. */
async function storedCounts(ids: string[]): Promise<Counts> {
  const counts: Counts = {};
  for (const row of await rows(server, `select themes from answer_analysis where submission_id in (${ids.map(() => '?').join(', ')})`, ids)) {
    for (const t of row.themes as Array<{ theme: string; sentiment: 'positive' | 'neutral' | 'negative' }>) {
      counts[t.theme] ??= { positive: 0, neutral: 0, negative: 0 };
      counts[t.theme][t.sentiment]++;
    }
  }
  return counts;
}

it('counts each theme by sentiment, exactly, per day and location, in REST, CSV and GraphQL; others are refused', async () => {
  const texts = ['the table was dirty', 'very clean place', 'The food was delicious but the waiter was rude', 'khana thanda tha', 'Washroom was filthy'];
  const ids: string[] = [];
  for (const [i, text] of texts.entries()) ids.push(await r.answer({ taste: 7, text, ...(i % 2 ? { location: r.location } : {}) }));
  await other.answer({ taste: 7, text: 'dirty dirty place' });
  await until(
    () => rows(server, `select count(*)::int as n from answer_analysis where submission_id in (${ids.map(() => '?').join(', ')})`, ids),
    (n) => n[0].n === ids.length,
    10_000,
  );
  const expected = await storedCounts(ids);
  expect(expected.cleanliness).toEqual({ positive: 1, neutral: 0, negative: 2 });
  expect(expected.food).toMatchObject({ positive: 1, negative: 1 });

  const total = await r.call('GET', `/analytics/themes?${range()}&interval=total`);
  expect(total.status).toBe(200);
  expect(total.body.object).toBe('list');
  const got: Counts = Object.fromEntries(
    total.body.data.map((row: any) => [row.theme, { positive: row.positive, neutral: row.neutral, negative: row.negative }]),
  );
  expect(got).toEqual(expected);
  for (const row of total.body.data) expect(row.total).toBe(row.positive + row.neutral + row.negative);

  // By day and location: the answers at the location (the 2nd and 4th) apart from the others.
  const byLocation = await r.call('GET', `/analytics/themes?${range()}&interval=day&groupBy=location&theme=cleanliness`);
  expect(byLocation.status).toBe(200);
  const period = byLocation.body.data[0].period;
  expect(byLocation.body.data).toEqual(
    [
      {
        period,
        theme: 'cleanliness',
        location: r.location,
        survey: null,
        channel: null,
        dish: null,
        dishName: null,
        positive: 1,
        neutral: 0,
        negative: 0,
        total: 1,
      },
      { period, theme: 'cleanliness', location: null, survey: null, channel: null, dish: null, dishName: null, positive: 0, neutral: 0, negative: 2, total: 2 },
    ].sort((a, b) => String(a.location ?? '\uffff').localeCompare(String(b.location ?? '\uffff'))),
  );
  const atLocation = await r.call('GET', `/analytics/themes?${range()}&interval=total&location=${r.location}&theme=cleanliness`);
  expect(atLocation.body.data).toEqual([expect.objectContaining({ theme: 'cleanliness', positive: 1, negative: 0 })]);

  const csv = await fetch(`${server.url}${r.b}/analytics/themes?${range()}&interval=total&format=csv`, { headers: r.tenant.headers });
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = (await csv.text()).trim().split('\r\n');
  expect(lines[0].split(',')).toEqual(expect.arrayContaining(['period', 'theme', 'positive', 'neutral', 'negative', 'total']));
  expect(lines).toHaveLength(1 + Object.keys(expected).length);
  const header = lines[0].split(',');
  const clean = lines.map((l) => l.split(',')).find((cells) => cells[header.indexOf('theme')] === 'cleanliness')!;
  expect([clean[header.indexOf('positive')], clean[header.indexOf('negative')]]).toEqual(['1', '2']);

  const gql = await client(server, r.tenant.headers).data(
    `query($b: ID!, $from: Timestamp!, $to: Timestamp!) { analyticsThemes(business: $b, from: $from, to: $to, interval: total) { theme positive neutral negative total } }`,
    { b: r.tenant.businessId, from: Date.now() - DAY, to: Date.now() + DAY },
  );
  expect(gql.analyticsThemes).toEqual(
    total.body.data.map(({ theme, positive, neutral, negative, total: n }: any) => ({ theme, positive, neutral, negative, total: n })),
  );

  // The other business sees its own answer only, and never this one's.
  const theirs = await other.call('GET', `/analytics/themes?${range()}&interval=total`);
  expect(theirs.body.data).toEqual([expect.objectContaining({ theme: 'cleanliness', negative: 1, total: 1 })]);
  const refused = await rest(server, 'GET', `${r.b}/analytics/themes?${range()}`, { tenant: other.tenant });
  expect(refused.status).toBe(403);
});

it('bad parameters are a 400 naming them', async () => {
  for (const [path, field] of [
    ['from=2000&to=1000', 'from'],
    [`from=0&to=${401 * DAY}&interval=day`, 'interval'],
    [`${range()}&groupBy=metric`, 'groupBy'],
    [`${range()}&groupBy=staff`, 'groupBy'],
    [`${range()}&theme=Not%20a%20theme`, 'theme'],
    [`${range()}&sentiment=negative`, 'sentiment'],
    ['to=1000', 'from'],
  ]) {
    const answer = await r.call('GET', `/analytics/themes?${path}`);
    expectError(answer, 400);
    expect(answer.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  }
});
