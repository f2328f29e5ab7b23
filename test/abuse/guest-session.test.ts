import { createHash } from 'node:crypto';
import { jest } from '@jest/globals';
import { rotateKeysCommand } from '../../src/cli/rotate-keys.command.js';
import { GuestAgent, h1, useGuestSurvey, type GuestPage } from '../helpers/guest.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createHook, WEBHOOK_TEST_ENV } from '../webhooks/webhook-helpers.js';

/**
 * Issue 33, found by reading: a submission's `sessionId` goes out in webhook payloads and GraphQL, and it was the
 * unsigned first part of the guest's `guest_session` cookie (`<sessionId>.<ms>`), so whoever received an event could
 * forge the cookie and resume or alter that guest's unfinished answer. The cookie now carries a secret the public id
 * is a hash of, signed (HMAC) with a rotated server key; a forged or tampered cookie is no session at all.
 */
jest.setTimeout(60_000);

let hooks: Receiver;
const fx = useGuestSurvey({ server: { env: WEBHOOK_TEST_ENV, workers: true } }, async () => {
  hooks = await startReceiver(() => ({ status: 204 }));
  await createHook(fx.c, fx.business, `${hooks.url}/hooks`, ['submission.created']);
});
afterAll(() => hooks?.close());

const COOKIE = 'guest_session';
const RATINGS = () => ({ [`rating-${fx.metrics.food}`]: '5', [`rating-${fx.metrics.service}`]: '4' });

async function answersOf(submission: string) {
  const d = await fx.c.data(
    `query($b: ID!, $s: ID!, $id: ID!) { submission(business: $b, survey: $s, id: $id) { sessionId status answers { step value ratings } } }`,
    { b: fx.business, s: fx.survey, id: submission },
  );
  return d.submission as { sessionId: string; status: string; answers: Array<{ step: string; value: unknown }> };
}

/** A guest who answered the first two steps (ratings, NPS 9): their sessionId as a webhook receiver gets it. */
async function halfwayGuest() {
  const guest = new GuestAgent(fx.server.url);
  let page = await guest.get(fx.path);
  page = (await guest.answer(page, RATINGS())).next;
  page = (await guest.answer(page, { value: '9' })).next;
  expect(h1(page.html)).toBe('How did you order?');
  const cookie = guest.cookies.get(COOKIE)!;
  // The event of the new response, delivered to the business's webhook, signed, as any receiver reads it.
  const delivered = await hooks.waitFor((r) => !seen.has(JSON.parse(r.body).data.object.id));
  const event = JSON.parse(delivered.body).data.object as { id: string; sessionId: string };
  seen.add(event.id);
  return { guest, cookie, submission: event.id, sessionId: event.sessionId };
}
/** Responses whose event a test already took. */
const seen = new Set<string>();

/** A device with only this cookie, opening the survey page. */
async function withCookie(value: string): Promise<{ agent: GuestAgent; page: GuestPage }> {
  const agent = new GuestAgent(fx.server.url);
  agent.cookies.set(COOKIE, value);
  return { agent, page: await agent.get(fx.path) };
}

/** The page a device without any session sees: the first step, and a new cookie of its own. */
function expectNewSession(opened: { agent: GuestAgent; page: GuestPage }, forged: string) {
  expect(opened.page.status).toBe(200);
  expect(opened.page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(h1(opened.page.html)).toBe('How was it?');
  expect(opened.page.html).toContain('Step 1 of 4');
  expect(opened.agent.cookies.get(COOKIE)).not.toBe(forged);
}

describe('the guest_session cookie', () => {
  it('the sessionId in payloads and GraphQL is not in the cookie, and a cookie made from it is no session', async () => {
    const g = await halfwayGuest();
    expect(g.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/); // the shape payloads have always carried
    expect((await answersOf(g.submission)).sessionId).toBe(g.sessionId);

    // Yesterday's forgery: `<sessionId>.<ms>`, with and without a signature-looking tail.
    for (const forged of [`${g.sessionId}.${Date.now() - 60_000}`, `${g.sessionId}.${Date.now() - 60_000}.${g.cookie.split('.').slice(2).join('.')}`]) {
      expectNewSession(await withCookie(forged), forged);
    }
    expect(g.cookie).not.toContain(g.sessionId);
    // The real guest still resumes where they stopped.
    expect(h1((await g.guest.get(fx.path)).html)).toBe('How did you order?');
  });

  it('a forger cannot alter the answer: the step page under a forged cookie is a new response, and a forged post is refused', async () => {
    const g = await halfwayGuest();
    const forged = `${g.sessionId}.${Date.now() - 60_000}`;
    // Through the pages, as a browser would: open the NPS step under the forged cookie and answer 0.
    const forger = new GuestAgent(fx.server.url);
    forger.cookies.set(COOKIE, forged);
    const npsPage = await forger.get(`${fx.path}?step=${fx.steps.nps}`);
    expect(npsPage.status).toBe(200);
    if (npsPage.step === fx.steps.nps) await forger.answer(npsPage, { value: '0' });
    const npsOf = async () => (await answersOf(g.submission)).answers.find((a) => a.step === fx.steps.nps)?.value;
    expect(await npsOf()).toBe(9);
    // Straight to the form with yesterday's CSRF token (a hash of the session id) and the forged cookie.
    const post = await new GuestAgent(fx.server.url).post(
      fx.path,
      { csrf: createHash('sha256').update(`csrf:${g.sessionId}`).digest('base64url'), step: fx.steps.nps, value: '0' },
      { cookie: `${COOKIE}=${forged}`, 'sec-fetch-site': 'same-origin' },
    );
    expect(post.status).toBe(403);
    expect(post.headers.get('content-type')).toMatch(/^text\/html/);

    expect(await npsOf()).toBe(9);
    expect((await answersOf(g.submission)).answers).toHaveLength(2);
    // The guest goes on and finishes with their own answers.
    let page = await g.guest.get(fx.path);
    page = (await g.guest.answer(page, { value: 'Takeaway' })).next;
    page = (await g.guest.answer(page, { value: 'Lovely biryani' })).next;
    expect(h1(page.html)).toBe('Thank you');
    const done = await answersOf(g.submission);
    expect(done.status).toBe('completed');
    expect(done.answers.map((a) => a.value ?? 'ratings')).toEqual(['ratings', 9, 'Takeaway', 'Lovely biryani']);
  });

  it('a tampered cookie (an earlier start, another secret, a changed signature, garbage) is a new session, never an error', async () => {
    const g = await halfwayGuest();
    const [secret, startedAt, ...rest] = g.cookie.split('.');
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
    const tampered = [
      [secret, String(Number(startedAt) - 3_600_000), ...rest].join('.'),
      [flip(secret), startedAt, ...rest].join('.'),
      rest.length ? [secret, startedAt, ...rest.slice(0, -1), flip(rest.at(-1)!)].join('.') : `${g.cookie}.x`,
      'not-a-session',
      `${'A'.repeat(43)}.${Date.now()}.unknown-kid.${'A'.repeat(43)}`,
    ];
    for (const forged of tampered) expectNewSession(await withCookie(forged), forged);
    expect(h1((await g.guest.get(fx.path)).html)).toBe('How did you order?');
  });

  it('rotate-keys: a new guest-session key signs; cookies signed by the previous one still resume', async () => {
    const g = await halfwayGuest();
    const kid = g.cookie.split('.')[2];
    const rotated = (await rotateKeysCommand.run({}, fx.server.orm)) as { guestSession?: { kid: string; retired: string[] } };
    expect(rotated.guestSession?.retired).toContain(kid);
    expect(rotated.guestSession?.kid).not.toBe(kid);
    expect(h1((await g.guest.get(fx.path)).html)).toBe('How did you order?');
  });
});
