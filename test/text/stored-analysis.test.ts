import pino from 'pino';
import { createTenant } from '../helpers/auth.js';
import { GuestAgent, useGuestSurvey } from '../helpers/guest.js';
import { countStatements } from '../helpers/sql-counter.js';
import { until } from '../helpers/until.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { startTextAnalysis } from '../../src/worker/text-analysis.runner.js';

/**
 * Issue 52, item 3 over real HTTP and the real database: every text answer read by the workers within 10 s of being
 * stored, shown as `analysis` in GraphQL and REST; a business's theme settings read at once and re-reading its
 * recent answers; the queue's job done once by two workers.
 */
const fx = useGuestSurvey({ server: { workers: true, env: { TRUST_PROXY_HOPS: '1' } } });
const ANALYSIS = 'analysis { step language sentiment { score label } themes { theme sentiment words } dishes { name menuItem sentiment } analysedAt }';
const TEN_SECONDS = 10_000;

const submissionsPath = () => `/v2/businesses/${fx.business}/surveys/${fx.survey}/submissions`;
const settingsPath = (business = fx.business) => `/v2/businesses/${business}/theme-settings`;

async function analysisOf(id: string) {
  const d = await fx.c.data(`query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { id ${ANALYSIS} } }`, {
    b: fx.business,
    s: fx.survey,
    id,
  });
  return d.submission.analysis as any[];
}

/** An API submission answering every required step, with `text` as its text answer. */
async function submit(text: string): Promise<string> {
  const answers = [
    { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4, [fx.metrics.service]: 4 } },
    { step: fx.steps.nps, value: 8 },
    { step: fx.steps.choice, value: 'Dine-in' },
    { step: fx.steps.text, value: text },
  ];
  const created = await rest(fx.server, 'POST', submissionsPath(), { tenant: fx.tenant, body: { answers } });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

const themesOf = (analysis: any[]) => analysis.flatMap((a) => a.themes.map((t: any) => `${t.theme}:${t.sentiment}`));

it('a guest page answer is read within 10 s, shown in GraphQL and REST', async () => {
  const g = new GuestAgent(fx.server.url, { 'x-forwarded-for': '10.1.2.3' });
  let page = await g.get(fx.path);
  for (const form of [{ [`rating-${fx.metrics.food}`]: '3', [`rating-${fx.metrics.service}`]: '2' }, { value: '4' }, { value: 'Delivery' }])
    page = (await g.answer(page, form)).next;
  const last = await g.answer(page, { value: 'khana thanda tha aur rider bohat late tha' });
  expect(last.post.status).toBe(303);
  const stored = await fx.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, where: {source: {eq: "page"}}) { data { id status } } }`, {
    b: fx.business,
    s: fx.survey,
  });
  const [response] = stored.submissions.data;
  expect(response.status).toBe('completed');

  const analysis = await until(
    () => analysisOf(response.id),
    (a) => a.length === 1,
    TEN_SECONDS,
  );
  expect(analysis[0]).toEqual({
    step: fx.steps.text,
    language: 'ur-Latn',
    sentiment: { score: expect.any(Number), label: 'negative' },
    themes: expect.arrayContaining([{ theme: 'food', sentiment: 'negative', words: ['khana', 'thanda'] }]),
    dishes: [],
    analysedAt: expect.any(Number),
  });
  expect(themesOf(analysis)).toContain('delivery:negative');
  // The same themes in one list (what a page of the portal's Feedback list asks for), each with its answer's step.
  const flat = await fx.c.data(`query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { themes { step theme sentiment } } }`, {
    b: fx.business,
    s: fx.survey,
    id: response.id,
  });
  expect(flat.submission.themes).toEqual(analysis[0].themes.map((t: any) => ({ step: fx.steps.text, theme: t.theme, sentiment: t.sentiment })));

  const viaRest = await rest(fx.server, 'GET', `${submissionsPath()}/${response.id}`, { tenant: fx.tenant });
  expect(viaRest.status).toBe(200);
  expect(viaRest.body.data.analysis).toEqual(analysis);
  // Nothing of the text is stored again: the analysis holds labels, a score and the words that carry each theme.
  const rows = await fx.server.orm.em.getConnection().execute(`select * from answer_analysis where submission_id = ?`, [response.id]);
  expect(rows).toHaveLength(1);
  expect(JSON.stringify(rows)).not.toContain('aur rider');
});

it('an API submission is read within 10 s; the REST list shows each one’s analysis too', async () => {
  const id = await submit('The food was delicious but the waiter was rude');
  const analysis = await until(
    () => analysisOf(id),
    (a) => a.length === 1,
    TEN_SECONDS,
  );
  expect(analysis[0].language).toBe('en');
  expect(analysis[0].themes).toEqual([
    { theme: 'food', sentiment: 'positive', words: ['food', 'delicious'] },
    { theme: 'staff', sentiment: 'negative', words: ['waiter', 'rude'] },
  ]);
  const got = await rest(fx.server, 'GET', `${submissionsPath()}/${id}`, { tenant: fx.tenant });
  expect(got.body.data.analysis).toEqual(analysis);
  const list = await rest(fx.server, 'GET', `${submissionsPath()}?pageSize=100`, { tenant: fx.tenant });
  expect(list.status).toBe(200);
  expect(list.body.data.find((s: any) => s.id === id).analysis).toEqual(analysis);
});

it('a changed text answer is read again; one without text has no analysis', async () => {
  const id = await submit('Food was great');
  await until(
    () => analysisOf(id),
    (a) => a.length === 1,
    TEN_SECONDS,
  );
  // The submission's answers replaced: the same ratings, NPS and choice, and `text` when given.
  const change = (text?: string) =>
    rest(fx.server, 'PATCH', `${submissionsPath()}/${id}`, {
      tenant: fx.tenant,
      body: {
        answers: [
          { step: fx.steps.rate, ratings: { [fx.metrics.food]: 2, [fx.metrics.service]: 2 } },
          { step: fx.steps.nps, value: 3 },
          { step: fx.steps.choice, value: 'Dine-in' },
          ...(text === undefined ? [] : [{ step: fx.steps.text, value: text }]),
        ],
      },
    });
  const changed = await change('Bohat mehnga aur table ganda tha');
  expect(changed.status).toBe(200);
  const again = await until(
    () => analysisOf(id),
    (a) => a.length === 1 && a[0].sentiment.label === 'negative',
    TEN_SECONDS,
  );
  expect(themesOf(again).sort()).toEqual(['cleanliness:negative', 'price:negative']);

  // The text answer taken away: its analysis goes with it.
  const without = await change();
  expect(without.status).toBe(200);
  await until(
    () => analysisOf(id),
    (a) => a.length === 0,
    TEN_SECONDS,
  );
});

describe('theme settings', () => {
  const PARKING = 'Parking was terrible, we drove around for 20 minutes';

  it('a business’s own theme (parking) is found at once and its recent answers are read again', async () => {
    const id = await submit(PARKING);
    const before = await until(
      () => analysisOf(id),
      (a) => a.length === 1,
      TEN_SECONDS,
    );
    expect(themesOf(before)).not.toContain('parking:negative');
    const empty = await rest(fx.server, 'GET', settingsPath(), { tenant: fx.tenant });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ words: [], off: [], updatedAt: null });

    const changed = await rest(fx.server, 'PATCH', settingsPath(), {
      tenant: fx.tenant,
      body: {
        words: [
          { theme: 'parking', language: 'en', words: ['Parking', 'drove around'] },
          { theme: 'parking', language: 'ur-Latn', words: ['gari khari'] },
        ],
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.words).toEqual([
      { theme: 'parking', language: 'en', words: ['parking', 'drove around'] },
      { theme: 'parking', language: 'ur-Latn', words: ['gari khari'] },
    ]);
    expect(changed.body.data.reanalysing).toBeGreaterThanOrEqual(1);

    // The endpoint reads with them at once.
    const now = await rest(fx.server, 'POST', `/v2/businesses/${fx.business}/text-analysis`, { tenant: fx.tenant, body: { texts: [PARKING] } });
    expect(now.body.data[0].themes).toContainEqual({ theme: 'parking', sentiment: 'negative', words: ['parking', 'terrible', 'drove', 'around'] });
    // The stored answer is read again in the background.
    const after = await until(
      () => analysisOf(id),
      (a) => themesOf(a).includes('parking:negative'),
      TEN_SECONDS,
    );
    expect(after[0].analysedAt).toBeGreaterThan(before[0].analysedAt);

    // A theme switched off is no longer reported, by the endpoint or the stored analyses.
    const off = await fx.c.data(`mutation($b: ID!) { updateThemeSettings(business: $b, input: {off: ["parking"]}) { words { theme } off reanalysing } }`, {
      b: fx.business,
    });
    expect(off.updateThemeSettings.off).toEqual(['parking']);
    expect(off.updateThemeSettings.words).toHaveLength(2);
    await until(
      () => analysisOf(id),
      (a) => !themesOf(a).some((t) => t.startsWith('parking')),
      TEN_SECONDS,
    );
    const read = await fx.c.data(`query($b: ID!) { themeSettings(business: $b) { off updatedAt } }`, { b: fx.business });
    expect(read.themeSettings).toEqual({ off: ['parking'], updatedAt: expect.any(Number) });
    await fx.c.data(`mutation($b: ID!) { updateThemeSettings(business: $b, input: {words: [], off: []}) { off } }`, { b: fx.business });
  });

  it('another business can neither read nor change them', async () => {
    const other = await createTenant(fx.server, { businessName: 'Elsewhere' });
    expectError(await rest(fx.server, 'GET', settingsPath(), { tenant: other }), 403, 'forbidden');
    expectError(await rest(fx.server, 'PATCH', settingsPath(), { tenant: other, body: { off: ['food'] } }), 403, 'forbidden');
    const viaGraphql = await fx.server.graphql(
      `mutation($b: ID!) { updateThemeSettings(business: $b, input: {off: ["food"]}) { off } }`,
      { b: fx.business },
      other.headers,
    );
    expect(viaGraphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await rest(fx.server, 'GET', settingsPath(), { tenant: fx.tenant })).body.data.off).toEqual([]);
    // Staff-like tokens without business:write read but do not change.
    const reader = await createTenant(fx.server, { scopes: ['business:read'] });
    expect((await rest(fx.server, 'GET', settingsPath(reader.businessId), { tenant: reader })).status).toBe(200);
    expectError(await rest(fx.server, 'PATCH', settingsPath(reader.businessId), { tenant: reader, body: { off: ['food'] } }), 403, 'forbidden');
  });

  it.each([
    ['an unknown language', { words: [{ theme: 'parking', language: 'fr', words: ['garer'] }] }, 'words[0].language'],
    ['a theme name with spaces', { words: [{ theme: 'car park', language: 'en', words: ['parking'] }] }, 'words[0].theme'],
    ['no words', { words: [{ theme: 'parking', language: 'en', words: [] }] }, 'words[0].words'],
    ['a blank word', { words: [{ theme: 'parking', language: 'en', words: ['  '] }] }, 'words[0].words[0]'],
    ['a word too long', { words: [{ theme: 'parking', language: 'en', words: ['x'.repeat(61)] }] }, 'words[0].words[0]'],
    [
      'a theme twice in one language',
      {
        words: [
          { theme: 'parking', language: 'en', words: ['a'] },
          { theme: 'parking', language: 'en', words: ['b'] },
        ],
      },
      'words[1]',
    ],
    ['an unknown theme switched off', { off: ['weather'] }, 'off[0]'],
  ])('%s is a 400 naming the field, and nothing is stored', async (_, body, field) => {
    const before = await rest(fx.server, 'GET', settingsPath(), { tenant: fx.tenant });
    const answer = await rest(fx.server, 'PATCH', settingsPath(), { tenant: fx.tenant, body });
    expectError(answer, 400, 'validation_failed');
    expect(answer.body.error.details).toContainEqual({ field, message: expect.any(String) });
    expect((await rest(fx.server, 'GET', settingsPath(), { tenant: fx.tenant })).body).toEqual(before.body);
  });

  it('a body that is not the settings’ shape is a 400', async () => {
    expectError(await rest(fx.server, 'PATCH', settingsPath(), { tenant: fx.tenant, body: { words: 'parking' } }), 400);
    expectError(await rest(fx.server, 'PATCH', settingsPath(), { tenant: fx.tenant, body: { colour: 'red' } }), 400);
  });
});

it('two workers share the queue and do each job once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push(await submit(`Visit ${i}: the biryani was cold and the waiter was slow`));
  await until(
    () => Promise.all(ids.map(analysisOf)),
    (all) => all.every((a) => a.length === 1),
    TEN_SECONDS * 3,
  );
  // A second set of workers beside the server's, on the same database: a theme change queues every answer at once.
  const second = await startTextAnalysis({ orm: fx.server.orm, logger: pino({ level: 'silent' }) });
  const counter = countStatements(fx.server.orm);
  try {
    const { updateThemeSettings } = await fx.c.data(
      `mutation($b: ID!) { updateThemeSettings(business: $b, input: {words: [{theme: "food", language: "en", words: ["biryani"]}]}) { reanalysing } }`,
      { b: fx.business },
    );
    const queued = updateThemeSettings.reanalysing;
    expect(queued).toBeGreaterThanOrEqual(ids.length);
    const left = async () => Number((await fx.server.orm.em.getConnection().execute(`select count(*)::int as n from text_analysis_job`))[0].n);
    await until(left, (n) => n === 0, TEN_SECONDS * 3);
    // Each queued submission's analyses written once: one statement per job, whichever worker ran it.
    expect(counter.statements.filter((s) => /insert into answer_analysis/.test(s))).toHaveLength(queued);
  } finally {
    counter.restore();
    await second.stop();
  }
});

it('a page of submissions reads every analysis it shows in one statement, whatever its size (GraphQL and REST)', async () => {
  const query = `query($b: ID!, $s: ID!, $n: Int!) { submissions(business: $b, survey: $s, pageSize: $n) { data { id ${ANALYSIS} } } }`;
  const cost = async (run: () => Promise<unknown>) => {
    await run();
    const counter = countStatements(fx.server.orm);
    try {
      await run();
      // The workers share this ORM: their look for due jobs (every 15 s) is not the page's.
      return counter.statements.filter((s) => !/due_at/.test(s)).length;
    } finally {
      counter.restore();
    }
  };
  const page = (n: number) => async () => {
    const d = await fx.c.data(query, { b: fx.business, s: fx.survey, n });
    expect(d.submissions.data).toHaveLength(n);
    expect(d.submissions.data.filter((s: any) => s.analysis.length).length).toBeGreaterThan(n / 2);
  };
  const restPage = (n: number) => async () =>
    expect((await rest(fx.server, 'GET', `${submissionsPath()}?pageSize=${n}`, { tenant: fx.tenant })).body.data).toHaveLength(n);
  const [small, big] = [await cost(page(3)), await cost(page(12))];
  expect(big).toBe(small);
  expect(await cost(restPage(12))).toBe(await cost(restPage(3)));
  const counter = countStatements(fx.server.orm);
  await page(12)();
  counter.restore();
  expect(counter.statements.filter((s) => /from "answer_analysis"/.test(s))).toHaveLength(1);
});
