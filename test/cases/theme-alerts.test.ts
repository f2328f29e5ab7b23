import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { rows } from '../ingest/ingest-helpers.js';
import { useRestaurants, type Restaurant } from './case.fixtures.js';

/**
 * Issue 52, item 4 over real HTTP and the workers: an alert rule on themes and sentiment opens a case once the answer
 * is read (and only then, and once however often it is read again); words of illness or allergy open an urgent case
 * whatever the rating, told to the owners, as a built-in rule of every business.
 */
jest.setTimeout(90_000);

let server: TestServer;
let r: Restaurant;
useRestaurants(['Karachi Kitchen'], (...made) => ([server, r] = made));

const casesOf = async (submission: string) => rows(server, 'select id, rule_id, severity, reason from guest_case where submission_id = ?', [submission]);
const analysedAt = async (submission: string) => {
  const [row] = await rows(server, 'select analysed_at from answer_analysis where submission_id = ?', [submission]);
  return row ? new Date(row.analysed_at).getTime() : 0;
};
const alertsOf = async (caseId: string) => rows(server, `select address from case_alert where case_id = ? and kind = 'alert' order by address`, [caseId]);

/** Queues every recent answer of the business to be read again (a change of its theme settings), and waits till `ids` were. */
async function readAgain(ids: string[]) {
  const before = await Promise.all(ids.map(analysedAt));
  const patched = await r.call('PATCH', '/theme-settings', { words: [{ theme: 'parking', language: 'en', words: ['parking', 'valet'] }] });
  expect(patched.status).toBe(200);
  expect(patched.body.data.reanalysing).toBeGreaterThanOrEqual(ids.length);
  for (const [i, id] of ids.entries())
    await until(
      () => analysedAt(id),
      (at) => at > before[i],
      10_000,
    );
}

it('a rule on cleanliness read negative opens a case for "the table was dirty", none for "very clean place", each once', async () => {
  const rule = await r.made('/alert-rules', { name: 'Dirty tables', when: { themes: ['cleanliness'], sentiment: 'negative' }, notify: [{ role: 'owner' }] });
  const shown = await r.call('GET', `/alert-rules/${rule}`);
  expect(shown.body.data.when).toMatchObject({ themes: ['cleanliness'], sentiment: 'negative', maxRating: null, keywords: null });

  const dirty = await r.answer({ taste: 9, text: 'the table was dirty' });
  const clean = await r.answer({ taste: 9, text: 'very clean place' });
  // Nothing is read at completion: the case follows the analysis.
  await until(
    () => Promise.all([analysedAt(dirty), analysedAt(clean)]),
    (at) => at.every(Boolean),
    10_000,
  );
  const [opened] = await until(
    () => casesOf(dirty),
    (c) => c.length > 0,
    10_000,
  );
  expect(opened).toMatchObject({ rule_id: rule, severity: 'normal', reason: 'theme: cleanliness negative (dirty)' });
  expect(await casesOf(clean)).toEqual([]);
  expect(await alertsOf(opened.id)).toEqual([{ address: r.tenant.email }]);
  const listed = await r.caseOf(dirty);
  expect(listed).toMatchObject({ id: opened.id, rule, severity: 'normal', reason: 'theme: cleanliness negative (dirty)' });

  // Read again (the business's theme settings changed): still one case, one alert; the clean one still none.
  await readAgain([dirty, clean]);
  expect(await casesOf(dirty)).toEqual([opened]);
  expect(await casesOf(clean)).toEqual([]);
  expect(await alertsOf(opened.id)).toHaveLength(1);
  await r.call('DELETE', `/alert-rules/${rule}`);
});

it('"I got food poisoning" with the best rating opens an urgent case at once, told to the owners, once', async () => {
  const manager = await r.member('manager');
  const sick = await r.answer({ taste: 10, nps: 10, text: 'Lovely place but I got food poisoning after the biryani' });
  // At completion, with no rule of the business at all: the built-in rule.
  const [opened] = await casesOf(sick);
  expect(opened).toMatchObject({ rule_id: null, severity: 'urgent', reason: 'illness or allergy: food poisoning' });
  expect((await r.caseOf(sick)).severity).toBe('urgent');
  const alerts = await alertsOf(opened.id);
  expect(alerts).toEqual([{ address: r.tenant.email }]);
  expect(alerts).not.toContainEqual({ address: manager.email });

  for (const text of ['khana khane ke baad ulti hui', 'کھانے کے بعد میں بیمار ہو گیا', 'My son is ALLERGIC to nuts and they were in the sauce']) {
    const id = await r.answer({ taste: 10, text });
    expect(await casesOf(id)).toEqual([expect.objectContaining({ severity: 'urgent', reason: expect.stringMatching(/^illness or allergy: /) })]);
  }
  const fine = await r.answer({ taste: 10, text: 'Best biryani in town, the waiter was lovely' });
  expect(await casesOf(fine)).toEqual([]);

  await readAgain([sick]);
  expect(await casesOf(sick)).toEqual([opened]);
  expect(await alertsOf(opened.id)).toHaveLength(1);
});

it('a rule names themes the business has and a sentiment of three: anything else is a 400 naming the field', async () => {
  const bad = await r.call('POST', '/alert-rules', {
    name: 'x',
    when: { themes: ['cleanliness', 'valet-parking'], sentiment: 'angry' },
    notify: [{ role: 'owner' }],
  });
  expect(bad.status).toBe(400);
  expect(bad.body.error.details).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ field: 'when.themes[1]', message: expect.stringContaining("'valet-parking' is not a theme of this business") }),
      expect.objectContaining({ field: 'when.sentiment', message: 'must be one of positive, neutral, negative' }),
    ]),
  );
  // The business's own theme (its settings, added above) is one a rule may name; sentiment alone is a condition too.
  expect((await r.call('POST', '/alert-rules', { name: 'Parking', when: { themes: ['parking'] }, notify: [{ role: 'owner' }] })).status).toBe(201);
  expect((await r.call('POST', '/alert-rules', { name: 'Unhappy words', when: { sentiment: 'negative' }, notify: [{ role: 'owner' }] })).status).toBe(201);
});
