import { jest } from '@jest/globals';
import { useGuestSurvey } from '../helpers/guest.js';
import { runAdmin } from '../helpers/process.js';
import { rest } from '../rest/rest.helpers.js';

jest.setTimeout(120_000);

/**
 * `npm run admin -- analyse-answers` (issue 52, item 3): the text answers stored before the workers read every new
 * one, analysed by the CLI, resumable. This server runs no workers: the answers below wait, as old ones do.
 */
const fx = useGuestSurvey();
const admin = (...args: Array<string | Parameters<typeof runAdmin>[2]>) =>
  runAdmin(
    ['analyse-answers', ...args.filter((a): a is string => typeof a === 'string')],
    { DATABASE_URL: fx.server.db.url },
    args.find((a) => typeof a === 'object'),
  );

async function submit(text?: string): Promise<string> {
  const answers = [
    { step: fx.steps.rate, ratings: { [fx.metrics.food]: 4, [fx.metrics.service]: 4 } },
    { step: fx.steps.nps, value: 8 },
    { step: fx.steps.choice, value: 'Dine-in' },
    ...(text ? [{ step: fx.steps.text, value: text }] : []),
  ];
  const created = await rest(fx.server, 'POST', `/v2/businesses/${fx.business}/surveys/${fx.survey}/submissions`, { tenant: fx.tenant, body: { answers } });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

async function analysed(ids: string[]): Promise<string[]> {
  const d = await fx.c.data(
    `query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, pageSize: 100) { data { id analysis { step sentiment { label } } } } }`,
    { b: fx.business, s: fx.survey },
  );
  return d.submissions.data.filter((s: any) => ids.includes(s.id) && s.analysis.length).map((s: any) => s.id);
}

it('analyses the answers without an analysis, with a progress line; stopped, it goes on where it left off', async () => {
  const ids = [];
  for (const text of ['The food was cold', 'Waiter bohat rude tha', 'کھانا مزیدار تھا', 'Great ambience', 'Too expensive']) ids.push(await submit(text));
  await submit(); // no text answer: nothing to read
  expect(await analysed(ids)).toEqual([]);

  // Stopped after two (as a Ctrl-C between batches leaves it).
  const first = await admin('--business', fx.business, '--batch', '1', '--limit', '2');
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toEqual({ object: 'textanalysisrun', analysed: 2, remaining: 3 });
  expect(first.stderr).toMatch(/^analyse-answers: 1 of 5 submissions analysed \(last sub_\w+\)\nanalyse-answers: 2 of 5 submissions analysed/);
  expect((await analysed(ids)).sort()).toEqual(ids.slice(0, 2).sort());

  // The next run reads only the other three.
  const second = await admin('--batch', '2');
  expect(second.code).toBe(0);
  expect(JSON.parse(second.stdout)).toEqual({ object: 'textanalysisrun', analysed: 3, remaining: 0 });
  expect(second.stderr).toMatch(/2 of 3 submissions analysed[\s\S]*3 of 3 submissions analysed/);
  expect((await analysed(ids)).sort()).toEqual([...ids].sort());

  const third = await admin();
  expect(JSON.parse(third.stdout)).toEqual({ object: 'textanalysisrun', analysed: 0, remaining: 0 });
});

it('interrupted (Ctrl-C) after a batch, the next run reads the rest, each answer once', async () => {
  const ids = [];
  for (let i = 0; i < 30; i++) ids.push(await submit(`Visit ${i}: the karahi was cold but the staff were kind`));
  const stopped = await admin('--batch', '1', { interruptWhen: (stderr: string) => /1 of 30 submissions analysed/.test(stderr) });
  // Wherever the signal landed, what was read stays read, and the rest is left.
  const read = (await analysed(ids)).length;
  expect(read).toBeGreaterThanOrEqual(1);
  const rest = await admin();
  expect(rest.code).toBe(0);
  expect(JSON.parse(rest.stdout)).toEqual({ object: 'textanalysisrun', analysed: 30 - read, remaining: 0 });
  expect(await analysed(ids)).toHaveLength(30);
  if (read < 30) expect(stopped.code).not.toBe(0);
});

it('refuses a bad business or count with its usage (exit 2)', async () => {
  for (const args of [
    ['--business', 'loc_123'],
    ['--batch', '0'],
    ['--limit', 'many'],
  ]) {
    const { code, stderr, stdout } = await admin(...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/Usage: npm run admin -- analyse-answers/);
  }
});
