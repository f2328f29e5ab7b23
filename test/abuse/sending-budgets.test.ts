import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startMailBox, type MailBox } from '../helpers/smtp.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { qs } from '../rest/rest.helpers.js';
import { rows, uniqueId } from '../ingest/ingest-helpers.js';
import { restaurant, type Restaurant } from '../cases/case.fixtures.js';
import { createLogger } from '../../src/http/logger.js';
import { startFeedbackRequests } from '../../src/worker/feedback-request.runner.js';
import { startCaseOutbox } from '../../src/worker/case-outbox.runner.js';
import type { OutboxLoop } from '../../src/worker/outbox.loop.js';
import { countStatements } from '../helpers/sql-counter.js';
import { until } from '../helpers/until.js';

/**
 * Issue 48, item 2, over real HTTP with a real SMTP server and a real SMS gateway on 127.0.0.1: every outbound message
 * counts against its business's daily budget on its channel (small while the business is new) and the guest's; past
 * one, an API send is a 429 naming it and an automated send is held until the budget resets, the owner told once.
 * Budgets here: 8 SMS and 3 e-mails a day for a new business, 5 a day to one guest per channel (the default). The
 * workers' clock is this file's (the day they count by moves with it); the API's is the real one.
 */
jest.setTimeout(120_000);

let server: TestServer;
let mail: MailBox;
let sms: Receiver;
let loops: OutboxLoop[] = [];
let fixedNow: Date | null = null;
const clock = () => fixedNow ?? new Date();
const setNow = (at: Date) => {
  fixedNow = at;
  for (const loop of loops) loop.wake();
};

beforeAll(async () => {
  mail = await startMailBox();
  sms = await startReceiver(() => ({ status: 201, body: '{}' }));
  server = await startTestServer({
    env: {
      SMTP_URL: mail.url,
      MAIL_FROM: 'Feedback <feedback@example.com>',
      SMS_GATEWAY_URL: `${sms.url}/sms`,
      SEND_BUDGET_SMS_NEW: '8',
      SEND_BUDGET_EMAIL_NEW: '3',
    },
  });
  const deps = { orm: server.orm, logger: createLogger('silent'), config: { ...server.config, surveyUrl: server.url }, services: server.services, clock };
  loops = [await startFeedbackRequests(deps), await startCaseOutbox(deps)];
});
afterEach(() => {
  fixedNow = null;
});
afterAll(async () => {
  for (const loop of loops) await loop.stop();
  await server?.stop();
  await mail?.close();
  await sms?.close();
});

/** A case of `r` whose guest ordered with these contacts. */
async function caseOf(r: Restaurant, contact: { customerEmail?: string; customerPhoneNumber?: string }) {
  const order = await r.order(contact);
  return r.caseOf(await r.answer({ taste: 1, text: 'Cold biryani', order }));
}

const budgetQuery = 'query($b: ID!) { business(id: $b) { sendingBudget { channel limit used remaining held perGuest resetsAt growsAt } } }';
const budgetOf = async (r: Restaurant) => {
  const answer = await server.graphql(budgetQuery, { b: r.tenant.businessId }, r.tenant.headers);
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.business.sendingBudget as Array<{
    channel: string;
    limit: number;
    used: number;
    remaining: number;
    held: number;
    perGuest: number;
    resetsAt: number;
    growsAt: number | null;
  }>;
};
const nextMidnightUtc = (at: Date) => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);

/** The value of one sample of /metrics, by name and labels as written. */
async function sample(series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('the API: a case reply past a budget is a 429 naming it, and nothing already stored is lost', () => {
  it('80 SMS replies to one guest at once: 5 sent (the per-guest budget), 75 refused naming "sms-per-guest"', async () => {
    const r = await restaurant(server, 'Karahi House');
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
    const phone = '+923001110010';
    const c = await caseOf(r, { customerPhoneNumber: phone });

    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => r.call('POST', `/cases/${c.id}/messages`, { body: `Sorry, reply ${i}` })));
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(75);
    for (const a of refused) {
      expect(a.status).toBe(429);
      expect(a.body.error).toMatchObject({
        status: 429,
        code: 'rate_limited',
        message: expect.stringMatching(/^Sending budget "sms-per-guest" spent: a business sends at most 5 SMS a day to one guest/),
      });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(a.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }

    // The five are stored and sent; the refused left nothing behind; the gateway got five texts for that number.
    const ids = created.map((a) => a.body.data.id).sort();
    await until(
      async () => (await r.call('GET', `/cases/${c.id}/messages?pageSize=100`)).body.data,
      (list: Array<{ status: string }>) => list.length === 5 && list.every((m) => m.status === 'sent'),
    );
    const thread = (await r.call('GET', `/cases/${c.id}/messages?pageSize=100`)).body;
    expect(thread.total).toBe(5);
    expect(thread.data.map((m: { id: string }) => m.id).sort()).toEqual(ids);
    expect(sms.requests.filter((q) => JSON.parse(q.body).to === phone)).toHaveLength(5);

    // The budget as the owner reads it: 5 of the new business's 8 SMS used today.
    const now = Date.now();
    expect((await budgetOf(r)).find((b) => b.channel === 'sms')).toEqual({
      channel: 'sms',
      limit: 8,
      used: 5,
      remaining: 3,
      held: 0,
      perGuest: 5,
      resetsAt: nextMidnightUtc(new Date(now)),
      growsAt: expect.any(Number),
    });
    // Also on REST's GET of the business.
    const rest = await r.call('GET', '');
    expect(rest.body.data.sendingBudget).toEqual(expect.arrayContaining([expect.objectContaining({ channel: 'sms', limit: 8, used: 5, remaining: 3 })]));
  });

  it('another guest may still be answered until the business\'s own SMS budget is spent: then a 429 naming "sms"', async () => {
    const r = await restaurant(server, 'Biryani Corner');
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
    const first = await caseOf(r, { customerPhoneNumber: '+923001110011' });
    const second = await caseOf(r, { customerPhoneNumber: '+923001110012' });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await r.call('POST', `/cases/${first.id}/messages`, { body: `To the first guest ${i}` })).status);
    for (let i = 0; i < 3; i++) statuses.push((await r.call('POST', `/cases/${second.id}/messages`, { body: `To the second guest ${i}` })).status);
    expect(statuses).toEqual(Array(8).fill(201));
    const ninth = await r.call('POST', `/cases/${second.id}/messages`, { body: 'One too many' });
    expect(ninth.status).toBe(429);
    expect(ninth.body.error.message).toMatch(
      /^Sending budget "sms" spent: this business may send 8 SMS a day \(the budget of a new business, until .*\), and has sent them today\. It resets at /,
    );
    // GraphQL says the same, and e-mail is another budget.
    const gql = await server.graphql(
      'mutation($b: ID!, $c: ID!, $input: CreateCaseMessageInput!) { createCaseMessage(business: $b, case: $c, input: $input) { id } }',
      { b: r.tenant.businessId, c: second.id, input: { body: 'Still too many', channel: 'sms' } },
      r.tenant.headers,
    );
    expect(gql.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^Sending budget "sms" spent/), extensions: { code: 'RATE_LIMITED' } });
    expect((await r.call('GET', `/cases/${second.id}/messages`)).body.total).toBe(3);

    // Tomorrow (the business's day moved back in the stored tally) the budget is whole again.
    await rows(server, `update sending_tally set day = day - 1 where business_id = ?`, [r.tenant.businessId]);
    expect((await r.call('POST', `/cases/${second.id}/messages`, { body: 'A new day' })).status).toBe(201);
    expect((await budgetOf(r)).find((b) => b.channel === 'sms')).toMatchObject({ used: 1, remaining: 7 });
  });

  it('a page that shows its business many times reads its budget once (REST expand=business)', async () => {
    const r = await restaurant(server, 'Many Surveys');
    for (let i = 0; i < 5; i++) await r.made('/surveys', { name: `Survey ${i}` });
    const counter = countStatements(server.orm);
    try {
      const page = await r.call('GET', '/surveys?pageSize=10&expand=business');
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBe(6);
      for (const survey of page.body.data) expect(survey.business.sendingBudget).toHaveLength(2);
      expect(counter.statements.filter((q) => q.includes('sending_tally'))).toHaveLength(1);
    } finally {
      counter.restore();
    }
  });

  it('a business past its first days has the larger budget', async () => {
    const r = await restaurant(server, 'Old Town Grill');
    await rows(server, `update business set created_at = now() - interval '8 days' where id = ?`, [r.tenant.businessId]);
    expect(await budgetOf(r)).toEqual([
      expect.objectContaining({ channel: 'email', limit: 5_000, used: 0, remaining: 5_000, growsAt: null }),
      expect.objectContaining({ channel: 'sms', limit: 1_000, used: 0, remaining: 1_000, growsAt: null }),
    ]);
  });
});

describe('automated sends past the budget are held until it resets, then sent', () => {
  it("a new business's 3 e-mails: 2 feedback requests and an alert held, the owner told once, /metrics counting them; sent after the reset", async () => {
    const heldBefore = await sample('messages_held_total{channel="email",kind="feedback_request",budget="business"}');
    // The workers a minute ahead of the orders, so what is queued now is due to them.
    const start = new Date(Date.now() + 60_000);
    setNow(start);
    const r = await restaurant(server, 'Cafe Nihari');
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
    await r.made('/feedback-flows', {
      name: 'After tagged orders',
      survey: r.survey,
      channels: ['email'],
      delayMinutes: 0,
      quietHours: null,
      conditions: { metadata: { ask: 'yes' } },
    });
    const guests = Array.from({ length: 5 }, () => `${uniqueId('guest')}@example.com`);
    const orders = [];
    for (const email of guests)
      orders.push(await r.made('/orders', { externalOrderId: uniqueId('o'), total: 900, currency: 'PKR', customerEmail: email, metadata: { ask: 'yes' } }));
    const requests = () =>
      rows(server, `select status, send_at, due_at from feedback_request where business_id = ? order by created_at`, [r.tenant.businessId]);
    const reset = nextMidnightUtc(start);
    // Three sent; two held until midnight UTC, still scheduled.
    const settled = await until(
      requests,
      (list) =>
        list.length === 5 &&
        list.filter((q) => q.status === 'sent').length === 3 &&
        list.filter((q) => q.status === 'scheduled' && new Date(q.due_at).getTime() === reset).length === 2,
    );
    expect(settled.filter((q) => q.status === 'scheduled').map((q) => new Date(q.send_at).getTime())).toEqual([reset, reset]);
    expect(orders).toHaveLength(5);
    expect(mail.mails.filter((m) => guests.some((g) => m.to.includes(g)))).toHaveLength(3);

    // A guest's low rating opens a case: its alert to the owner is held too.
    const c = await caseOf(r, { customerEmail: `${uniqueId('unhappy')}@example.com`, customerPhoneNumber: '+923001110020' });
    const alerts = () => rows(server, `select status, due_at from case_alert where case_id = ?`, [c.id]);
    await until(alerts, (list) => list.length === 1 && list[0].status === 'pending' && new Date(list[0].due_at).getTime() === reset);

    // The owner sees what is left and what waits; told once by an event, however many were held.
    expect((await budgetOf(r)).find((b) => b.channel === 'email')).toEqual({
      channel: 'email',
      limit: 3,
      used: 3,
      remaining: 0,
      held: 3,
      perGuest: 5,
      resetsAt: reset,
      growsAt: expect.any(Number),
    });
    const events = (await r.call('GET', `/events${qs({ pageSize: '100' })}`)).body.data.filter((e: { type: string }) => e.type === 'sendingbudget.reached');
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toEqual({
      object: 'sendingbudget',
      business: r.tenant.businessId,
      channel: 'email',
      limit: 3,
      used: 3,
      remaining: 0,
      held: 1,
      perGuest: 5,
      resetsAt: reset,
      growsAt: expect.any(Number),
    });
    expect((await sample('messages_held_total{channel="email",kind="feedback_request",budget="business"}')) - heldBefore).toBe(2);
    expect(await sample('messages_held_total{channel="email",kind="alert",budget="business"}')).toBeGreaterThanOrEqual(1);

    // The API's reply by e-mail is refused naming the budget, and stores nothing; by SMS (another budget) it goes.
    const byMail = await r.call('POST', `/cases/${c.id}/messages`, { body: 'Sorry!', channel: 'email' });
    expect(byMail.status).toBe(429);
    expect(byMail.body.error.message).toMatch(/^Sending budget "email" spent: this business may send 3 e-mails a day/);
    expect((await r.call('POST', `/cases/${c.id}/messages`, { body: 'Sorry!', channel: 'sms' })).status).toBe(201);
    expect((await r.call('GET', `/cases/${c.id}/messages`)).body.data.map((m: { channel: string }) => m.channel)).toEqual(['sms']);

    // Midnight UTC: what was held goes, within the new day's budget.
    setNow(new Date(reset + 60_000));
    await until(requests, (list) => list.every((q) => q.status === 'sent'));
    await until(alerts, (list) => list[0].status === 'sent');
    expect(mail.mails.filter((m) => guests.some((g) => m.to.includes(g)))).toHaveLength(5);
    await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.subject.startsWith('Unhappy guest at Cafe Nihari'));
    // Still told once.
    expect(
      (await r.call('GET', `/events${qs({ pageSize: '100' })}`)).body.data.filter((e: { type: string }) => e.type === 'sendingbudget.reached'),
    ).toHaveLength(1);
  });

  it('workers never overspend: 40 reservations at once, each on a connection of its own as in other processes, take exactly the 8 SMS', async () => {
    const r = await restaurant(server, 'Many Workers Cafe');
    const now = new Date();
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () =>
        server.services.sending.reserve(server.orm.em.fork(), { business: r.tenant.businessId, channel: 'sms', kind: 'alert' }, now),
      ),
    );
    expect(outcomes.filter((o) => o.reserved)).toHaveLength(8);
    expect(outcomes.filter((o) => !o.reserved).map((o) => !o.reserved && o.budget)).toEqual(Array(32).fill('sms'));
    const [tally] = await rows(server, `select used, held, told_at from sending_tally where business_id = ? and budget = 'sms' and recipient = ''`, [
      r.tenant.businessId,
    ]);
    expect(tally).toMatchObject({ used: 8, held: 32, told_at: expect.anything() });
    // Told once, however many were held at once.
    const told = await rows(server, `select count(*)::int as n from event where business_id = ? and type = 'sendingbudget.reached'`, [r.tenant.businessId]);
    expect(told[0].n).toBe(1);
    // A send that did not go out gives its unit back.
    const reserved = outcomes.find((o) => o.reserved)!;
    if (reserved.reserved) await reserved.giveBack();
    expect((await budgetOf(r)).find((b) => b.channel === 'sms')).toMatchObject({ used: 7, remaining: 1, held: 32 });
  });
});
