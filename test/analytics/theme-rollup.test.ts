import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { client } from '../helpers/graphql.js';
import { rows } from '../ingest/ingest-helpers.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { useRestaurants, type Restaurant } from '../cases/case.fixtures.js';
import { DAY } from './analytics.fixtures.js';
import { rebuildAnalytics } from '../../src/modules/analytics/analytics-rebuild.service.js';

/**
 * Issue 52, item 4: the theme rollups (analytics_theme_rollup, analytics_theme_word_rollup) equal a recount of the
 * stored analyses after new answers, a theme settings edit that re-reads them, a moved and a deleted submission, a
 * deleted location and survey, and a rebuild; analyticsThemes by dish and analyticsThemeWords read from them, over
 * real HTTP.
 */
jest.setTimeout(120_000);

let server: TestServer;
let r: Restaurant;
let other: Restaurant;
useRestaurants(['Rollup Kitchen', 'Other Rollup Kitchen'], (...made) => ([server, r, other] = made));

type Finding = { theme: string; sentiment: 'positive' | 'neutral' | 'negative'; words: string[] };
const key = (...parts: unknown[]) => parts.map((p) => String(p ?? '')).join('|');

/** The rollups' rows of the business, zero rows left out, as key -> counts. */
async function rollups(business: string) {
  const themes: Record<string, [number, number, number]> = {};
  for (const x of await rows(server, `select * from analytics_theme_rollup where business_id = ? and (positive, neutral, negative) <> (0, 0, 0)`, [business])) {
    themes[key(x.day, x.theme, x.location_id, x.survey_id, x.channel, x.menu_item_id)] = [x.positive, x.neutral, x.negative];
  }
  const words: Record<string, number> = {};
  for (const x of await rows(server, `select * from analytics_theme_word_rollup where business_id = ? and count <> 0`, [business])) {
    words[key(x.day, x.theme, x.sentiment, x.word, x.location_id, x.survey_id)] = x.count;
  }
  return { themes, words };
}

/** The same, counted here from answer_analysis and the submissions as they are now: what the rollups must hold. */
async function recount(business: string) {
  const themes: Record<string, [number, number, number]> = {};
  const words: Record<string, number> = {};
  const analyses = await rows(
    server,
    `select s.analytics_day as day, s.location_id, s.survey_id, s.channel, a.themes, a.dishes
       from answer_analysis a join submission s on s.id = a.submission_id where a.business_id = ?`,
    [business],
  );
  for (const a of analyses) {
    const dishes = ['', ...new Set((a.dishes as Array<{ menuItem: string }>).map((d) => d.menuItem))];
    for (const t of a.themes as Finding[]) {
      const slot = ['positive', 'neutral', 'negative'].indexOf(t.sentiment);
      for (const dish of dishes) {
        const k = key(a.day, t.theme, a.location_id, a.survey_id, a.channel, dish);
        themes[k] ??= [0, 0, 0];
        themes[k][slot]++;
      }
      for (const word of new Set(t.words)) {
        const k = key(a.day, t.theme, t.sentiment, word, a.location_id, a.survey_id);
        words[k] = (words[k] ?? 0) + 1;
      }
    }
  }
  return { themes, words };
}

const exact = async (business = r.tenant.businessId) => {
  const counted = await recount(business);
  expect(Object.keys(counted.themes).length).toBeGreaterThan(0);
  expect(await rollups(business)).toEqual(counted);
  return counted;
};
const jobsDone = () =>
  until(
    () => rows(server, `select count(*)::int as n from text_analysis_job`),
    (x) => x[0].n === 0,
    15_000,
  );
const range = () => ({ from: Date.now() - 2 * DAY, to: Date.now() + 2 * DAY });
const THEMES = `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $groupBy: [AnalyticsGroupBy!], $dish: ID, $theme: String) {
  analyticsThemes(business: $b, from: $from, to: $to, interval: total, groupBy: $groupBy, dish: $dish, theme: $theme) { theme location survey dish dishName positive neutral negative total } }`;
const themes = (variables: Record<string, unknown> = {}) =>
  client(server, r.tenant.headers)
    .data(THEMES, { b: r.tenant.businessId, ...range(), ...variables })
    .then((d) => d.analyticsThemes as any[]);
const WORDS = `query($b: ID!, $from: Timestamp!, $to: Timestamp!, $theme: String, $sentiment: String, $location: ID, $limit: Int) {
  analyticsThemeWords(business: $b, from: $from, to: $to, theme: $theme, sentiment: $sentiment, location: $location, limit: $limit) { theme sentiment word count } }`;
const words = (variables: Record<string, unknown> = {}) =>
  client(server, r.tenant.headers)
    .data(WORDS, { b: r.tenant.businessId, ...range(), ...variables })
    .then((d) => d.analyticsThemeWords as any[]);

let biryani: string;
let karahi: string;
const ids: Record<string, string> = {};

it('equals a recount of the stored analyses after new answers; by dish; the words guests use most', async () => {
  await r.made('/orders', {
    externalOrderId: 'T-1',
    total: 2000,
    currency: 'PKR',
    items: [
      { name: 'Chicken Biryani', quantity: 1 },
      { name: 'Mutton Karahi', quantity: 1 },
    ],
  });
  const menu = (await r.call('GET', '/menu-items?pageSize=10')).body.data as Array<{ id: string; name: string }>;
  biryani = menu.find((m) => m.name === 'Chicken Biryani')!.id;
  karahi = menu.find((m) => m.name === 'Mutton Karahi')!.id;

  ids.cold = await r.answer({ taste: 3, text: 'The biryani was cold and the table was dirty', location: r.location });
  ids.tasty = await r.answer({ taste: 9, text: 'Karahi was delicious, very clean place' });
  ids.rude = await r.answer({ taste: 2, text: 'The waiter was rude and the food was cold' });
  ids.dirty = await r.answer({ taste: 4, text: 'Washroom was dirty and the floor was dirty too', location: r.location });
  ids.parking = await r.answer({ taste: 5, text: 'parking was impossible but the biryani was delicious' });
  await other.answer({ taste: 1, text: 'dirty dirty place' });
  await jobsDone();
  await exact();
  await exact(other.tenant.businessId);

  // Totals count each answer once, whatever dishes it names.
  const total = await themes();
  const food = total.find((t) => t.theme === 'food');
  expect(food).toEqual({ theme: 'food', location: null, survey: null, dish: null, dishName: null, positive: 2, neutral: 0, negative: 2, total: 4 });
  // By dish: an answer naming a dish counts for it, with the dish's name; the filter keeps one dish.
  const byDish = await themes({ groupBy: ['dish'], theme: 'food' });
  expect(Object.fromEntries(byDish.map((t) => [t.dish, { name: t.dishName, positive: t.positive, negative: t.negative, total: t.total }]))).toEqual({
    [biryani]: { name: 'Chicken Biryani', positive: 1, negative: 1, total: 2 },
    [karahi]: { name: 'Mutton Karahi', positive: 1, negative: 0, total: 1 },
  });
  expect(await themes({ dish: karahi })).toEqual(expect.arrayContaining([expect.objectContaining({ theme: 'food', dish: null, positive: 1, total: 1 })]));
  const csv = await fetch(
    `${server.url}${r.b}/analytics/themes?from=${range().from}&to=${range().to}&interval=total&groupBy=dish,location&theme=food&format=csv`,
    { headers: r.tenant.headers },
  );
  expect(csv.status).toBe(200);
  const [header, ...lines] = (await csv.text()).trim().split('\r\n');
  expect(header.split(',')).toEqual(expect.arrayContaining(['dish', 'dishName', 'location']));
  expect(lines.map((l) => l.split(',')[header.split(',').indexOf('dishName')]).sort()).toEqual(['Chicken Biryani', 'Chicken Biryani', 'Mutton Karahi']);

  // The words guests use most: each counted once per answer, the most used first, `limit` per theme and sentiment.
  const dirtiest = await words({ theme: 'cleanliness', sentiment: 'negative' });
  expect(dirtiest[0]).toEqual({ theme: 'cleanliness', sentiment: 'negative', word: 'dirty', count: 2 });
  for (const [i, w] of dirtiest.entries()) if (i) expect(w.count).toBeLessThanOrEqual(dirtiest[i - 1].count);
  const counted = await recount(r.tenant.businessId);
  const expected: Record<string, number> = {};
  for (const [k, n] of Object.entries(counted.words)) {
    const [, theme, sentiment, word] = k.split('|');
    expected[key(theme, sentiment, word)] = (expected[key(theme, sentiment, word)] ?? 0) + n;
  }
  const all = await words({ limit: 50 });
  expect(Object.fromEntries(all.map((w) => [key(w.theme, w.sentiment, w.word), w.count]))).toEqual(expected);
  const one = await words({ limit: 1 });
  expect(one.length).toBe(new Set(all.map((w) => key(w.theme, w.sentiment))).size);
  expect(await words({ location: r.location, theme: 'cleanliness' })).toEqual(
    expect.arrayContaining([{ theme: 'cleanliness', sentiment: 'negative', word: 'dirty', count: 2 }]),
  );
  const restWords = await r.call('GET', `/analytics/theme-words?from=${range().from}&to=${range().to}&theme=cleanliness&sentiment=negative&limit=3`);
  expect(restWords.status).toBe(200);
  expect(restWords.body).toEqual({ object: 'list', data: dirtiest.slice(0, 3) });
  // Another business's words are not this one's to read.
  expect((await other.call('GET', `/analytics/theme-words?from=${range().from}&to=${range().to}`)).body.data).toEqual(
    expect.arrayContaining([expect.objectContaining({ theme: 'cleanliness', word: 'dirty', count: 1 })]),
  );
  const refused = await rest(server, 'GET', `${r.b}/analytics/theme-words?from=${range().from}&to=${range().to}`, { tenant: other.tenant });
  expect(refused.status).toBe(403);
});

/** Until the themes read name `shown` and not `hidden` (the answers read again); then the rollups are exact. */
async function readAgain(shown: string, hidden: string) {
  await until(
    async () => (await themes()).map((t) => t.theme),
    (names) => names.includes(shown) && !names.includes(hidden),
    15_000,
  );
  await jobsDone();
  await exact();
}

it('stays exact when a theme settings edit reads the answers again', async () => {
  const edited = await r.call('PATCH', '/theme-settings', { words: [{ theme: 'parking', language: 'en', words: ['parking'] }], off: ['cleanliness'] });
  expect(edited.status).toBe(200);
  await readAgain('parking', 'cleanliness');
  expect((await words({ theme: 'cleanliness' })).length).toBe(0);
  expect(await words({ theme: 'parking' })).toEqual([expect.objectContaining({ theme: 'parking', word: 'parking', count: 1 })]);
  // Back as it was, for the tests after.
  expect((await r.call('PATCH', '/theme-settings', { words: [], off: [] })).status).toBe(200);
  await readAgain('cleanliness', 'parking');
});

it('stays exact when a submission moves, is deleted, and when its location or survey is deleted', async () => {
  const before = (await themes()).find((t) => t.theme === 'staff');
  expect(before).toMatchObject({ negative: 1 });

  // Moved to another location (with a time zone of its own, so maybe another day): its counts move with it.
  const far = await r.made('/locations', { name: 'Kiritimati', timeZone: 'Pacific/Kiritimati' });
  const moved = await r.call('PATCH', `/surveys/${r.survey}/submissions/${ids.rude}`, { location: far });
  expect(moved.status).toBe(200);
  await exact();
  expect(await themes({ groupBy: ['location'], theme: 'staff' })).toEqual([expect.objectContaining({ location: far, negative: 1 })]);

  // Deleted: its counts go.
  expect((await r.call('DELETE', `/surveys/${r.survey}/submissions/${ids.rude}`)).status).toBe(204);
  await exact();
  expect((await themes()).find((t) => t.theme === 'staff')).toBeUndefined();

  // Its location deleted: its answers count for no location (and its day in the business's zone).
  expect((await r.call('DELETE', `/locations/${r.location}`)).status).toBe(204);
  await exact();
  expect((await themes({ groupBy: ['location'] })).every((t) => t.location === null)).toBe(true);

  // Its survey deleted: its answers stay, for no survey.
  expect((await r.call('DELETE', `/surveys/${r.survey}`)).status).toBe(204);
  await exact();
  expect((await themes({ groupBy: ['survey'] })).every((t) => t.survey === null)).toBe(true);
});

it('is rebuilt from the stored analyses by rebuild-analytics', async () => {
  const counted = await exact();
  await rows(server, `update analytics_theme_rollup set positive = positive + 7 where business_id = ?`, [r.tenant.businessId]);
  await rows(server, `delete from analytics_theme_word_rollup where business_id = ?`, [r.tenant.businessId]);
  expect(await rollups(r.tenant.businessId)).not.toEqual(counted);
  const [report] = await rebuildAnalytics(server.orm.em.fork(), r.tenant.businessId);
  expect(report).toMatchObject({
    business: r.tenant.businessId,
    themeRollupRows: Object.keys(counted.themes).length,
    themeWordRollupRows: Object.keys(counted.words).length,
  });
  expect(await rollups(r.tenant.businessId)).toEqual(counted);
});

it('bad parameters of the words are a 400 naming them', async () => {
  const base = `from=${range().from}&to=${range().to}`;
  for (const [query, field] of [
    [`${base}&sentiment=angry`, 'sentiment'],
    [`${base}&theme=Not%20a%20theme`, 'theme'],
    [`${base}&limit=51`, 'limit'],
    [`${base}&limit=0`, 'limit'],
    [`${base}&groupBy=location`, 'groupBy'],
    ['from=2000&to=1000', 'from'],
  ]) {
    const answer = await r.call('GET', `/analytics/theme-words?${query}`);
    expectError(answer, 400);
    expect(answer.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  }
  const gql = await client(server, r.tenant.headers).error(WORDS, { b: r.tenant.businessId, ...range(), sentiment: 'angry' });
  expect(gql.details).toEqual([{ field: 'sentiment', message: 'must be one of positive, neutral, negative, not "angry"' }]);
});
