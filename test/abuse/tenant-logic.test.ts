import { Worker } from 'node:worker_threads';
import { jest } from '@jest/globals';
import { SurveyStep } from '../../src/modules/survey/survey-step.entity.js';
import { stepShown } from '../../src/modules/survey/survey-step-logic.rules.js';
import { guestSurvey, h1, type GuestSurveyFixture } from '../helpers/guest.js';
import { ATTACKER, healthzDuring, postJsonFrom, requestFrom, RIGHTFUL, type AddressedAnswer } from '../helpers/from-address.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 33, item 1: a tenant's survey logic and validation patterns are code the service runs on a guest's request.
 * A `reduce` that merges its accumulator with itself, and the pattern `^(a+)+$` answered with 41 a's and a '!',
 * each froze the process for every tenant. Rules now run under a budget (refused at save, hidden and logged when
 * one stored before goes over it), and patterns on RE2 (linear time; what RE2 cannot run is refused at save).
 */
jest.setTimeout(30_000);
// On the old code the probes freeze this very process, where no test timeout can fire: a thread of its own ends it.
const FROZEN_MS = 40_000;
let watchdog: Worker;
beforeAll(() => {
  watchdog = new Worker(
    `const { parentPort, workerData: ms } = require('node:worker_threads');
    const fs = require('node:fs');
    let timer;
    parentPort.on('message', (test) => {
      clearTimeout(timer);
      if (test) timer = setTimeout(() => {
        fs.writeSync(2, '\\n' + test + ': the event loop is frozen (' + ms + ' ms); ending the process\\n');
        process.kill(process.pid, 'SIGKILL');
      }, ms);
    });`,
    { eval: true, workerData: FROZEN_MS },
  );
  watchdog.unref();
});
beforeEach(() => watchdog.postMessage(expect.getState().currentTestName));
afterEach(() => watchdog.postMessage(null));
afterAll(() => watchdog.terminate());

const PROBE = { reduce: [Array(30).fill(1), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
const EVIL_PATTERN = '^(a+)+$';
const EVIL_ANSWER = `${'a'.repeat(41)}!`;

let server: TestServer;
/** The attacker's tenant: its survey gets the probes. */
let evil: GuestSurveyFixture;
/** Another tenant, whose guests must not notice. */
let other: GuestSurveyFixture;

useTestServer(async (s) => {
  server = s;
  evil = await guestSurvey(s, { name: 'Probe', steps: [['nps', { type: 'nps', required: true, content: { title: 'Would you recommend us?' } }]] });
  other = await guestSurvey(s, { name: 'Dinner', steps: [['nps', { type: 'nps', required: true, content: { title: 'How likely are you to come back?' } }]] });
});

/** A guest's phone at one address: a cookie jar, the page's form posted as a browser posts it. */
class GuestAt {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly address: string) {}

  private async send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const answer = await requestFrom(this.address, `${server.url}${path}`, {
      ...init,
      headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...init.headers },
    });
    for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      this.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return answer;
  }

  open(path: string) {
    return this.send(path);
  }

  /** Posts the page's own form (csrf, step, action) with this answer. */
  answer(page: AddressedAnswer, form: Record<string, string>) {
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)?.[1] ?? '';
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)![1].replace(/&amp;/g, '&');
    const body = new URLSearchParams({ csrf: field('csrf'), step: field('step'), ...form }).toString();
    return this.send(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  }
}

const stepsPath = (f: GuestSurveyFixture) => `${server.url}/v2/businesses/${f.business}/surveys/${f.survey}/steps`;

async function stepRows(f: GuestSurveyFixture) {
  const d = await f.c.data(`query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s, pageSize: 100) { data { id type logic validation } } }`, {
    b: f.business,
    s: f.survey,
  });
  return d.surveySteps.data as Array<{ id: string; type: string; logic: any; validation: any }>;
}

/** A step as a rule saved before this change was stored: straight into the table, past every check of the API. */
async function storeUnchecked(
  f: GuestSurveyFixture,
  fields: { type: SurveyStep['type']; logic?: object; validation?: object; required?: boolean; title: string },
) {
  const em = server.orm.em.fork();
  const position = await em.count(SurveyStep, { survey: f.survey });
  const step = em.create(SurveyStep, {
    business: f.business,
    survey: f.survey,
    position,
    type: fields.type,
    required: fields.required ?? false,
    content: { title: fields.title },
    inputType: null,
    validation: fields.validation ?? null,
    logic: fields.logic ?? null,
    metricIds: [],
  });
  await em.flush();
  return step.id;
}

/** The page cache forgets a survey when the change's NOTIFY comes, a moment after the commit: wait for the page to show it. */
async function pageShowing(f: GuestSurveyFixture, text: string) {
  for (const until = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 20))) {
    const page = await requestFrom(RIGHTFUL, `${server.url}${f.path}`, { headers: { accept: 'text/html' } });
    if (page.text.includes(text)) return page;
    if (Date.now() > until) throw new Error(`the page did not show "${text}": ${page.text.slice(0, 300)}`);
  }
}

describe('survey logic runs under a budget', () => {
  it('refuses the reduce/merge probe when a step is saved, at every door, naming logic.showIf, and stores nothing', async () => {
    const before = await stepRows(evil);
    const rest = await postJsonFrom(ATTACKER, stepsPath(evil), { type: 'info', content: { title: 'Boom' }, logic: { showIf: PROBE } }, evil.tenant.headers);
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      details: [{ field: 'logic.showIf', message: expect.stringMatching(/more than 2000 units of work/) }],
    });
    const graphql = await evil.c.error(
      `mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`,
      { b: evil.business, s: evil.survey, i: { type: 'info', logic: { showIf: PROBE } } },
    );
    expect(graphql).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'logic.showIf', message: expect.stringMatching(/units of work/) }] });
    // Nor can an existing step be changed into it.
    const patch = await requestFrom(ATTACKER, `${stepsPath(evil)}/${evil.steps.nps}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...evil.tenant.headers },
      body: JSON.stringify({ logic: { showIf: PROBE } }),
    });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details).toEqual([{ field: 'logic.showIf', message: expect.stringMatching(/units of work/) }]);
    expect(await stepRows(evil)).toEqual(before);
  });

  it('refuses a rule nested deeper than 20 levels, and still takes an ordinary follow-up rule', async () => {
    let deep: unknown = { var: 'answers.x' };
    for (let i = 0; i < 20; i++) deep = { '!': [deep] };
    const err = await evil.c.error(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
      b: evil.business,
      s: evil.survey,
      i: { type: 'info', logic: { showIf: deep } },
    });
    expect(err.details).toEqual([{ field: 'logic.showIf', message: expect.stringMatching(/nested more than 20 levels deep/) }]);
    const followUp = { some: [{ merge: [{ var: 'answers.x' }] }, { '<=': [{ var: '' }, 6] }] };
    const ok = await postJsonFrom(
      RIGHTFUL,
      stepsPath(other),
      { type: 'info', content: { title: 'Sorry to hear' }, logic: { showIf: followUp } },
      other.tenant.headers,
    );
    expect(ok.status).toBe(201);
    await requestFrom(RIGHTFUL, `${stepsPath(other)}/${ok.body.data.id}`, { method: 'DELETE', headers: other.tenant.headers });
  });

  it('hides a probe stored before the budget, at once, and every tenant is still served meanwhile', async () => {
    const f = await guestSurvey(server, { name: 'Stored probe', steps: [] });
    const nps = await storeUnchecked(f, { type: 'nps', required: true, title: 'Would you recommend us?' });
    await storeUnchecked(f, { type: 'info', title: 'Never shown', logic: { showIf: PROBE } });
    await pageShowing(f, 'Step 1 of 1'); // the NPS step alone: the probe's step is hidden
    const attacker = () => new GuestAt(ATTACKER).open(f.path);
    const { result, p95 } = await healthzDuring(server.url, () =>
      Promise.all([...Array.from({ length: 10 }, attacker), new GuestAt(RIGHTFUL).open(other.path)]),
    );
    expect(p95).toBeLessThan(200);
    const rightful = result.pop()!;
    for (const page of result) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('Step 1 of 1');
      expect(page.text).not.toContain('Never shown');
    }
    expect(rightful.status).toBe(200);
    expect(h1(rightful.text)).toBe('How likely are you to come back?');

    // The guest answers and is done: the hidden step is never asked, the response is complete.
    const guest = new GuestAt(ATTACKER);
    const done = await guest.answer(await guest.open(f.path), { value: '4' });
    expect(done.status).toBe(303);
    expect(done.headers.location).toMatch(/\/thanks$/);
    const subs = await f.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s) { data { status answers { step value } } } }`, {
      b: f.business,
      s: f.survey,
    });
    expect(subs.submissions.data).toEqual([{ status: 'completed', answers: [{ step: nps, value: 4 }] }]);
  });

  it('logs the rule it refuses to run, with the survey and the step', () => {
    const warn = jest.fn();
    const shown = stepShown({ id: 'step_X', survey: 'sur_Y', logic: { showIf: PROBE } }, { answers: {}, link: {} }, { warn } as never);
    expect(shown).toBe(false);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ survey: 'sur_Y', step: 'step_X', field: 'logic.showIf', reason: expect.stringMatching(/units of work/) }),
      expect.any(String),
    );
  });
});

describe('validation patterns run on RE2', () => {
  let patterned: GuestSurveyFixture;
  beforeAll(async () => {
    patterned = await guestSurvey(server, {
      name: 'Codes',
      steps: [['code', { type: 'text', required: true, content: { title: 'Your table code' }, validation: { pattern: EVIL_PATTERN } }]],
    });
  });

  it('answers the evil pattern with 41 a\'s and a "!" at once, as a wrong format, and stores nothing', async () => {
    const guest = new GuestAt(ATTACKER);
    const page = await guest.open(patterned.path);
    expect(h1(page.text)).toBe('Your table code');
    const { result, p95 } = await healthzDuring(server.url, () =>
      Promise.all([guest.answer(page, { value: EVIL_ANSWER }), new GuestAt(RIGHTFUL).open(other.path)]),
    );
    expect(p95).toBeLessThan(200);
    const [answered, rightful] = result;
    expect(answered.status).toBe(422);
    expect(answered.text).toContain('This answer cannot be accepted');
    expect(rightful.status).toBe(200);
    const subs = await patterned.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s) { total } }`, {
      b: patterned.business,
      s: patterned.survey,
    });
    expect(subs.submissions.total).toBe(0);
    // A matching answer is taken as before.
    const rightfulGuest = new GuestAt(RIGHTFUL);
    const ok = await rightfulGuest.answer(await rightfulGuest.open(patterned.path), { value: 'aaaa' });
    expect(ok.status).toBe(303);
  });

  it('refuses at save what RE2 cannot run in linear time, or a pattern too complex, naming validation.pattern', async () => {
    const before = await stepRows(patterned);
    for (const [pattern, message] of [
      ['(a)\\1', /RE2 syntax, without backreferences or lookarounds/],
      ['^(?=a)a+$', /RE2 syntax, without backreferences or lookarounds/],
      ['(?<=a)b', /RE2 syntax/],
      ['\\p{L}{1,1000}', /too complex: \d+ RE2 instructions, the limit is 200/],
      ['a'.repeat(501), /at most 500 characters/],
    ] as const) {
      const rest = await postJsonFrom(ATTACKER, stepsPath(patterned), { type: 'text', validation: { pattern } }, patterned.tenant.headers);
      expect({ pattern, status: rest.status, error: rest.body.error }).toEqual({
        pattern,
        status: 400,
        error: expect.objectContaining({ code: 'validation_failed', details: [{ field: 'validation.pattern', message: expect.stringMatching(message) }] }),
      });
    }
    expect(await stepRows(patterned)).toEqual(before);
    // JavaScript's own syntax for named groups and \u escapes is still taken.
    const js = await postJsonFrom(
      RIGHTFUL,
      stepsPath(other),
      { type: 'text', validation: { pattern: '^(?<code>[A-Z]{2})\\u002D\\d+$' } },
      other.tenant.headers,
    );
    expect(js.status).toBe(201);
    await requestFrom(RIGHTFUL, `${stepsPath(other)}/${js.body.data.id}`, { method: 'DELETE', headers: other.tenant.headers });
  });

  it('does not apply a pattern stored before that RE2 cannot run: the guest is answered, never frozen', async () => {
    const f = await guestSurvey(server, { name: 'Legacy', steps: [] });
    await storeUnchecked(f, { type: 'text', required: true, title: 'Your name', validation: { pattern: '^(\\w)\\1*(a+)+$' } });
    await pageShowing(f, 'Your name');
    const guest = new GuestAt(ATTACKER);
    const page = await guest.open(f.path);
    expect(page.status).toBe(200);
    const { result, p95 } = await healthzDuring(server.url, () => guest.answer(page, { value: EVIL_ANSWER }));
    expect(p95).toBeLessThan(200);
    // The answer's own checks (length, required) still hold; the unusable pattern is left out, not the guest.
    expect(result.status).toBe(303);
    const subs = await f.c.data(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s) { data { status answers { value } } } }`, {
      b: f.business,
      s: f.survey,
    });
    expect(subs.submissions.data).toEqual([{ status: 'completed', answers: [{ value: EVIL_ANSWER }] }]);
  });

  it('checks the length of an answer before any pattern sees it', async () => {
    const err = await patterned.c.error(
      `mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`,
      { b: patterned.business, s: patterned.survey, i: { answers: [{ step: patterned.steps.code, value: `${'a'.repeat(5001)}!` }] } },
    );
    expect(err.details).toEqual([{ field: 'answers[0].value', message: `step ${patterned.steps.code}: at most 5000 characters` }]);
  });
});
