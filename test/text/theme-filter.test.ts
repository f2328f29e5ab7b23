import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { client } from '../helpers/graphql.js';
import { countStatements } from '../helpers/sql-counter.js';
import { rows } from '../ingest/ingest-helpers.js';
import { expectError, qs } from '../rest/rest.helpers.js';
import { useRestaurants, type Restaurant } from '../cases/case.fixtures.js';

/**
 * Issue 52, item 5's click-through: the feedback list filtered by theme (SubmissionWhere.theme, REST's `theme`
 * filter), over real HTTP: what the workers read, with and without a sentiment, beside the other filters, after a
 * changed answer is read again and after a deletion; bad names and sentiments are a 400.
 */
jest.setTimeout(90_000);

let server: TestServer;
let r: Restaurant;
useRestaurants(['Filter Kitchen'], (...made) => ([server, r] = made));

const LIST = `query($b: ID!, $s: ID!, $where: SubmissionWhere) { submissions(business: $b, survey: $s, where: $where, pageSize: 100) { total data { id } } }`;
const idsOf = async (where: Record<string, unknown>) => {
  const d = await client(server, r.tenant.headers).data(LIST, { b: r.tenant.businessId, s: r.survey, where });
  expect(d.submissions.total).toBe(d.submissions.data.length);
  return (d.submissions.data as Array<{ id: string }>).map((s) => s.id).sort();
};
const restIds = async (filters: unknown[]) => {
  const answer = await r.call('GET', `/surveys/${r.survey}/submissions${qs({ filters, pageSize: '100' })}`);
  expect(answer.status).toBe(200);
  return (answer.body.data as Array<{ id: string }>).map((s) => s.id).sort();
};
const analysed = (ids: string[], n = ids.length) =>
  until(
    () => rows(server, `select count(*)::int as n from answer_analysis where submission_id in (${ids.map(() => '?').join(', ')})`, ids),
    (x) => x[0].n === n,
    10_000,
  );

it('finds the submissions whose answers speak of a theme, with a sentiment or any, in GraphQL and REST', async () => {
  const dirty = await r.answer({ taste: 3, text: 'the table was dirty', location: r.location });
  const clean = await r.answer({ taste: 9, text: 'very clean place' });
  const cold = await r.answer({ taste: 2, text: 'khana thanda tha' });
  const mixed = await r.answer({ taste: 5, text: 'Washroom was filthy but the food was delicious' });
  const silent = await r.answer({ taste: 8 });
  await analysed([dirty, clean, cold, mixed]);
  const sorted = (...ids: string[]) => ids.sort();

  expect(await idsOf({ theme: { theme: 'cleanliness' } })).toEqual(sorted(dirty, clean, mixed));
  expect(await idsOf({ theme: { theme: 'cleanliness', sentiment: 'negative' } })).toEqual(sorted(dirty, mixed));
  expect(await idsOf({ theme: { theme: 'cleanliness', sentiment: 'positive' } })).toEqual([clean]);
  expect(await idsOf({ theme: { theme: 'food', sentiment: 'negative' } })).toEqual([cold]);
  expect(await idsOf({ theme: { theme: 'parking' } })).toEqual([]);
  // Beside the other filters: every condition holds.
  expect(await idsOf({ theme: { theme: 'cleanliness', sentiment: 'negative' }, location: { eq: r.location } })).toEqual([dirty]);
  expect(await idsOf({ theme: { theme: 'cleanliness' }, lowestRating: { gte: 5 } })).toEqual(sorted(clean, mixed));
  expect(await idsOf({})).toContain(silent);

  // REST: the theme filter's two fields as two filters of field `theme`, each with its own type (docs/rest.md).
  expect(await restIds([{ field: 'theme', type: 'theme', value: 'cleanliness' }])).toEqual(sorted(dirty, clean, mixed));
  expect(
    await restIds([
      { field: 'theme', type: 'theme', value: 'cleanliness' },
      { field: 'theme', type: 'sentiment', value: 'negative' },
    ]),
  ).toEqual(sorted(dirty, mixed));

  // The filtered page costs what any page costs: the theme is a condition of the page's own statement.
  const cost = async (where: Record<string, unknown>) => {
    await idsOf(where);
    const counter = countStatements(server.orm);
    try {
      await idsOf(where);
      // The workers share this ORM: their look for due jobs is not the page's.
      return counter.statements.filter((s) => !/due_at/.test(s));
    } finally {
      counter.restore();
    }
  };
  const filtered = await cost({ theme: { theme: 'cleanliness' } });
  expect(filtered).toHaveLength((await cost({ status: { eq: 'completed' } })).length);
  expect(filtered.filter((s) => /answer_theme/.test(s))).toHaveLength(1);

  // A changed answer is read again: the list follows its new reading.
  const changed = await r.call('PATCH', `/surveys/${r.survey}/submissions/${clean}`, {
    answers: [
      { step: r.steps.rate, ratings: { [r.taste]: 9 } },
      { step: r.steps.text, value: 'the floor was dirty' },
    ],
  });
  expect(changed.status).toBe(200);
  await until(
    () => idsOf({ theme: { theme: 'cleanliness', sentiment: 'negative' } }),
    (ids) => ids.includes(clean),
    10_000,
  );
  expect(await idsOf({ theme: { theme: 'cleanliness', sentiment: 'positive' } })).toEqual([]);

  // A deleted submission leaves the list, its themes with it.
  expect((await r.call('DELETE', `/surveys/${r.survey}/submissions/${dirty}`)).status).toBe(204);
  expect(await idsOf({ theme: { theme: 'cleanliness', sentiment: 'negative' } })).toEqual(sorted(clean, mixed));
  expect(await rows(server, `select count(*)::int as n from answer_theme where submission_id = ?`, [dirty])).toEqual([{ n: 0 }]);
});

it('an unknown sentiment or a malformed theme name is a 400 saying so, in GraphQL and REST', async () => {
  const gql = client(server, r.tenant.headers);
  const angry = await gql.error(LIST, { b: r.tenant.businessId, s: r.survey, where: { theme: { theme: 'food', sentiment: 'angry' } } });
  expect(angry.code).toBe('BAD_USER_INPUT');
  expect(angry.details).toEqual([{ field: 'where.theme.sentiment', message: 'must be one of positive, neutral, negative, not "angry"' }]);
  const named = await gql.error(LIST, { b: r.tenant.businessId, s: r.survey, where: { theme: { theme: 'Clean Liness' } } });
  expect(named.details).toEqual([
    expect.objectContaining({ field: 'where.theme.theme', message: expect.stringContaining('must be a theme name such as cleanliness') }),
  ]);

  const list = `/surveys/${r.survey}/submissions`;
  const restAngry = await r.call(
    'GET',
    `${list}${qs({
      filters: [
        { field: 'theme', type: 'theme', value: 'food' },
        { field: 'theme', type: 'sentiment', value: 'angry' },
      ],
    })}`,
  );
  expectError(restAngry, 400, 'validation_failed');
  expect(restAngry.body.error.message).toMatch(/sentiment.*must be one of positive, neutral, negative/);
  // A sentiment alone names no theme.
  const alone = await r.call('GET', `${list}${qs({ filters: [{ field: 'theme', type: 'sentiment', value: 'negative' }] })}`);
  expectError(alone, 400);
  expect(alone.body.error.details[0].field).toBe('filters');
  const eq = await r.call('GET', `${list}${qs({ filters: [{ field: 'theme', type: 'eq', value: 'food' }] })}`);
  expectError(eq, 400);
  expect(eq.body.error.message).toMatch(/types: theme, sentiment/);
});
