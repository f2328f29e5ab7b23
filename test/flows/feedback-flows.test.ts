import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { guestSurvey, GuestAgent, h1, type GuestSurveyFixture } from '../helpers/guest.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startMailBox, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import { rest, expectError } from '../rest/rest.helpers.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { startFeedbackRequests, type FeedbackRequestWorkers } from '../../src/worker/feedback-request.runner.js';
import { createLogger } from '../../src/http/logger.js';
import { until } from '../helpers/until.js';

/**
 * Issue 16 over HTTP: flows through REST, orders through the custom webhook and the API, e-mail to a real SMTP
 * server in-process, SMS to a local HTTP endpoint, the guest's link and answer through the survey pages. The
 * worker's clock is fixed where time matters (delay, quiet hours, reminder, expiry): nothing sleeps.
 */
jest.setTimeout(60_000);

const INBOUND_SECRET = 'inbound-secret-0123456789';
let server: TestServer;
let mail: MailBox;
let sms: Receiver;
let worker: FeedbackRequestWorkers | undefined;
let fixedNow: Date | null = null;
const clock = () => fixedNow ?? new Date();
/** Moves the worker's clock and tells it so: asleep until the next due time it knows of, it would not look again. */
const setNow = (at: Date) => {
  fixedNow = at;
  worker?.wake();
};

const startWorker = async (options: { senders?: object } = {}) =>
  startFeedbackRequests({
    orm: server.orm,
    logger: createLogger('silent'),
    config: { ...server.config, surveyUrl: server.url },
    services: server.services,
    clock,
    ...(options as object),
  });

beforeAll(async () => {
  mail = await startMailBox();
  // The gateway refuses numbers of the +92399 range for good (as a provider rejects an invalid number).
  sms = await startReceiver((r) => (r.body.includes('+92399') ? { status: 400, body: '{"error":"invalid number"}' } : { status: 201, body: '{}' }));
  server = await startTestServer({
    env: { SMTP_URL: mail.url, MAIL_FROM: 'Karachi Kitchen <feedback@example.com>', SMS_GATEWAY_URL: `${sms.url}/sms`, SMS_INBOUND_SECRET: INBOUND_SECRET },
  });
  worker = await startWorker();
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await mail?.close();
  await sms?.close();
});
afterEach(() => {
  fixedNow = null;
});

interface Shop {
  fx: GuestSurveyFixture;
  tenant: Tenant;
  b: string;
  secret: string;
  flow: string;
  order(body?: Record<string, unknown>): Promise<{ id: string; externalOrderId: string }>;
}

/** A business with a one-question survey, the webhook connected and one flow (quiet hours off unless given). */
async function shop(flow: Record<string, unknown> = {}): Promise<Shop> {
  const fx = await guestSurvey(server, { steps: [['nps', { type: 'nps', required: true }]] });
  const { secret } = await connectCustomIntegration(server.orm.em.fork(), fx.business);
  const b = `/v2/businesses/${fx.business}`;
  const created = await rest(server, 'POST', `${b}/feedback-flows`, {
    tenant: fx.tenant,
    body: { name: 'After every order', survey: fx.survey, channels: ['email'], delayMinutes: 0, quietHours: null, ...flow },
  });
  if (created.status !== 201) throw new Error(`flow: ${created.status} ${JSON.stringify(created.body)}`);
  return {
    fx,
    tenant: fx.tenant,
    b,
    secret,
    flow: created.body.data.id,
    async order(body = {}) {
      const externalOrderId = uniqueId('ord');
      const res = await postWebhook(
        server,
        fx.business,
        { externalOrderId, total: '1250', currency: 'PKR', metadata: { source: 'test' }, customerEmail: `${uniqueId('guest')}@example.com`, ...body },
        { secret },
      );
      if (res.status !== 200) throw new Error(`order: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.data.id, externalOrderId };
    },
  };
}

const requestsOf = (order: string) => rows(server, 'select * from feedback_request where order_id = ? order by created_at', [order]);

const statusOf = (order: string, status: string) =>
  until(
    () => requestsOf(order),
    (r) => r.length > 0 && r.every((x) => x.status === status),
  );
const mailsTo = (to: string) => mail.mails.filter((m) => m.to.includes(to));
// The survey link, not its /unsubscribe sibling; a token may end in '-', so the end is "no token character or slash next".
const linkIn = (m: ReceivedMail) => /\/r\/[A-Za-z0-9_-]+(?![A-Za-z0-9_/-])/.exec(m.body)![0];

describe('flows over REST', () => {
  it('create, read, list, update, delete; events feedbackflow.*; scopes flows:read and flows:write', async () => {
    const s = await shop({ name: 'Dinner', conditions: { channel: ['WEBSITE'], minTotal: 500, metadata: { orderType: 'delivery' }, hasEmail: true } });
    const got = await rest(server, 'GET', `${s.b}/feedback-flows/${s.flow}`, { tenant: s.tenant });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      object: 'feedbackflow',
      data: expect.objectContaining({
        id: s.flow,
        object: 'feedbackflow',
        name: 'Dinner',
        enabled: true,
        priority: 0,
        trigger: 'order.created',
        survey: s.fx.survey,
        channels: ['email'],
        delayMinutes: 0,
        quietHours: null,
        throttleDays: 14,
        reminderAfterHours: null,
        expiresAfterHours: 168,
        conditions: { channel: ['WEBSITE'], minTotal: 500, metadata: { orderType: 'delivery' }, hasEmail: true },
        templates: { en: { subject: expect.any(String), body: expect.stringContaining('{{link}}') } },
      }),
    });
    const defaults = await rest(server, 'POST', `${s.b}/feedback-flows`, { tenant: s.tenant, body: { name: 'Defaults', survey: s.fx.survey } });
    expect(defaults.body.data).toEqual(
      expect.objectContaining({ channels: ['email', 'sms'], delayMinutes: 60, quietHours: { from: '23:00', to: '09:00', timeZone: null } }),
    );
    // The defaults are the API's to say, so the portal's new flow starts from the same.
    const told = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...s.tenant.headers },
      body: JSON.stringify({
        query: 'query($b: ID!) { feedbackFlowDefaults(business: $b) { delayMinutes quietHours { from to timeZone } throttleDays expiresAfterHours } }',
        variables: { b: s.tenant.businessId },
      }),
    }).then((r) => r.json());
    expect(told.data.feedbackFlowDefaults).toEqual({
      delayMinutes: 60,
      quietHours: { from: '23:00', to: '09:00', timeZone: null },
      throttleDays: 14,
      expiresAfterHours: 168,
    });
    const patched = await rest(server, 'PATCH', `${s.b}/feedback-flows/${defaults.body.data.id}`, { tenant: s.tenant, body: { enabled: false, priority: 5 } });
    expect(patched.body.data).toEqual(expect.objectContaining({ enabled: false, priority: 5 }));
    const list = await rest(server, 'GET', `${s.b}/feedback-flows?sorts=${encodeURIComponent('{"field":"priority","order":"asc"}')}`, { tenant: s.tenant });
    expect(list.body).toEqual(expect.objectContaining({ object: 'list', total: 2 }));
    expect(list.body.data.map((f: { id: string }) => f.id)).toEqual([s.flow, defaults.body.data.id]);
    expect((await rest(server, 'DELETE', `${s.b}/feedback-flows/${defaults.body.data.id}`, { tenant: s.tenant })).status).toBe(204);
    const events = await rows(server, "select type from event where business_id = ? and type like 'feedbackflow.%' order by created_at, id", [s.fx.business]);
    expect(events.map((e) => e.type)).toEqual(['feedbackflow.created', 'feedbackflow.created', 'feedbackflow.updated', 'feedbackflow.deleted']);

    const reader = await createTenant(server, { scopes: ['flows:read'] });
    const rb = `/v2/businesses/${reader.businessId}`;
    expect((await rest(server, 'GET', `${rb}/feedback-flows`, { tenant: reader })).status).toBe(200);
    expectError(await rest(server, 'POST', `${rb}/feedback-flows`, { tenant: reader, body: { name: 'x', survey: s.fx.survey } }), 403, 'forbidden');
    const none = await createTenant(server, { scopes: ['orders:read'] });
    expectError(await rest(server, 'GET', `/v2/businesses/${none.businessId}/feedback-requests`, { tenant: none }), 403, 'forbidden');
  });

  it('bad input is a clear 400: unknown condition, survey of another business, template without {{link}}, delay over 30 days', async () => {
    const s = await shop();
    const other = await guestSurvey(server);
    const bad = async (body: Record<string, unknown>) => {
      const res = await rest(server, 'POST', `${s.b}/feedback-flows`, { tenant: s.tenant, body: { name: 'Bad', survey: s.fx.survey, ...body } });
      expectError(res, 400, 'validation_failed');
      return res.body.error.details as { field: string; message: string }[];
    };
    expect(await bad({ conditions: { shoeSize: 42 } })).toEqual([{ field: 'conditions.shoeSize', message: expect.stringContaining('is not a condition') }]);
    expect(await bad({ survey: other.survey })).toEqual([{ field: 'survey', message: `no survey ${other.survey} in this business` }]);
    expect(await bad({ templates: { en: { subject: 'Hi', body: 'Tell us how it went' } } })).toEqual([
      { field: 'templates.en.body', message: 'must contain the {{link}} placeholder' },
    ]);
    expect(await bad({ delayMinutes: 30 * 24 * 60 + 1 })).toEqual([{ field: 'delayMinutes', message: expect.stringContaining('at most 30 days') }]);
    expect(await bad({ channels: ['fax'], quietHours: { from: '25:00', to: '09:00' }, trigger: 'order.paid' })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'channels[0]' }),
        expect.objectContaining({ field: 'quietHours.from' }),
        expect.objectContaining({ field: 'trigger' }),
      ]),
    );
    expectError(await rest(server, 'PATCH', `${s.b}/feedback-flows/${s.flow}`, { tenant: s.tenant, body: { throttleDays: -1 } }), 400, 'validation_failed');
    expectError(await rest(server, 'GET', `${s.b}/feedback-flows/ff_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { tenant: s.tenant }), 404, 'not_found');
  });
});

describe('requests', () => {
  it('an order gets exactly one e-mail after the delay; its link opens the page with the order; answering completes the request', async () => {
    const s = await shop({ delayMinutes: 2 });
    const email = `${uniqueId('ada')}@example.com`;
    const order = await s.order({ customerEmail: email, customerName: 'Dr. Ada Lovelace' });
    const [scheduled] = await requestsOf(order.id);
    expect(scheduled).toEqual(expect.objectContaining({ status: 'scheduled', flow_id: s.flow, trigger: 'order.created' }));
    // Not due yet: a worker pass later it is still scheduled, and nothing was sent.
    const listed = await until(
      () =>
        rest(server, 'GET', `${s.b}/feedback-requests?filters=${encodeURIComponent(JSON.stringify({ field: 'order', type: 'eq', value: order.id }))}`, {
          tenant: s.tenant,
        }),
      (r) => r.status === 200,
    );
    expect(listed.body.data).toEqual([expect.objectContaining({ object: 'feedbackrequest', order: order.id, status: 'scheduled', flow: s.flow })]);
    expect(mailsTo(email)).toEqual([]);

    setNow(new Date(Date.now() + 3 * 60_000));
    const sent = await mail.waitFor((m) => m.to.includes(email));
    await statusOf(order.id, 'sent');
    expect(mailsTo(email)).toHaveLength(1);
    expect(sent.headers.from).toContain('feedback@example.com');
    expect(sent.subject).toBe('How was your order at Karachi Kitchen?'); // the default names the restaurant (issue 36)
    expect(sent.body).toContain('Hi Ada, thank you');
    expect(sent.body).toContain(order.externalOrderId);
    expect(sent.headers['list-unsubscribe']).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/r\/[A-Za-z0-9_-]{16}\/unsubscribe>$/);
    expect(sent.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const link = linkIn(sent);
    expect(link).toMatch(/^\/r\/[A-Za-z0-9_-]{16}$/); // opaque, short, nothing personal

    const g = new GuestAgent(server.url, { 'x-forwarded-for': '10.9.8.7' });
    const opened = await g.get(link);
    expect(opened.status).toBe(302);
    expect(opened.location).toBe(`${s.fx.path}?custom.customOrderId=${order.externalOrderId}&ch=email`);
    await statusOf(order.id, 'opened');
    const page = await g.get(opened.location!);
    const { next } = await g.answer(page, { value: '9' });
    expect(h1(next.html)).toBe('Thank you');
    const [done] = await statusOf(order.id, 'completed');
    expect(done.completed_at).not.toBeNull();
    const submissions = await rows(server, 'select order_id from submission where survey_id = ?', [s.fx.survey]);
    expect(submissions).toEqual([{ order_id: order.id }]);
    const events = await rows(server, "select type from event where business_id = ? and type like 'feedbackrequest.%' order by created_at, id", [
      s.fx.business,
    ]);
    expect(events.map((e) => e.type)).toEqual(['feedbackrequest.created', 'feedbackrequest.sent', 'feedbackrequest.opened', 'feedbackrequest.completed']);
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('an answer by another route (QR, API) completes a sent request and cancels a scheduled one', async () => {
    const s = await shop({ delayMinutes: 600 });
    const order = await s.order();
    await statusOf(order.id, 'scheduled');
    const created = await rest(server, 'POST', `${s.b}/surveys/${s.fx.survey}/submissions`, {
      tenant: s.tenant,
      body: { answers: [{ step: s.fx.steps.nps, value: 7 }], custom: { customOrderId: order.externalOrderId } },
    });
    expect(created.status).toBe(201);
    const [cancelled] = await statusOf(order.id, 'cancelled');
    expect(cancelled).toEqual(expect.objectContaining({ reason: 'answered', due_at: null }));
  });

  it("the same customer's next order within the throttle is suppressed", async () => {
    const s = await shop();
    const email = `${uniqueId('repeat')}@example.com`;
    const first = await s.order({ customerEmail: email });
    await statusOf(first.id, 'sent');
    const second = await s.order({ customerEmail: email.toUpperCase() });
    const [suppressed] = await statusOf(second.id, 'suppressed');
    expect(suppressed.reason).toBe('throttled');
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('an unsubscribed address is suppressed; an order with no contact too', async () => {
    const s = await shop({ throttleDays: 0 });
    const email = `${uniqueId('bye')}@example.com`;
    const first = await s.order({ customerEmail: email });
    await statusOf(first.id, 'sent');
    const unsubscribe = mailsTo(email)[0].headers['list-unsubscribe'].slice(1, -1);
    const page = await fetch(unsubscribe);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    // RFC 8058 one-click, as a mail client posts it.
    const res = await fetch(unsubscribe, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    const second = await s.order({ customerEmail: email });
    expect((await statusOf(second.id, 'suppressed'))[0].reason).toBe('opted_out');
    const third = await s.order({ customerEmail: undefined });
    expect((await statusOf(third.id, 'suppressed'))[0].reason).toBe('no_contact');
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('an opt-out suppresses what is already scheduled for that contact, and only what it leaves no channel for', async () => {
    const s = await shop({ delayMinutes: 60, throttleDays: 0, channels: ['email', 'sms'] });
    const email = `${uniqueId('later')}@example.com`;
    const emailOnly = await s.order({ customerEmail: email });
    const both = await s.order({ customerEmail: email, customerPhoneNumber: '+923001231234' });
    await statusOf(emailOnly.id, 'scheduled');
    await statusOf(both.id, 'scheduled');
    const res = await rest(server, 'POST', `${s.b}/feedback-suppressions`, { tenant: s.tenant, body: { email } });
    expect(res.status).toBeLessThan(300);
    const [suppressed] = await statusOf(emailOnly.id, 'suppressed');
    expect(suppressed).toMatchObject({ reason: 'opted_out', due_at: null });
    // The other can still reach the guest by SMS: it stays scheduled, and the send-time check will pick SMS.
    expect((await requestsOf(both.id))[0].status).toBe('scheduled');
    const events = await rows(server, "select data from event where business_id = ? and type = 'feedbackrequest.suppressed'", [s.fx.business]);
    expect(events.map((e) => e.data.object.order)).toEqual([emailOnly.id]);
  });

  it('quiet hours defer the send to their end (fixed clock)', async () => {
    const s = await shop({ quietHours: { from: '21:00', to: '09:00', timeZone: 'UTC' } });
    // The next 22:00 UTC from now: inside the window, within the request's life.
    const at = new Date();
    at.setUTCHours(22, 0, 0, 0);
    if (at.getTime() <= Date.now()) at.setUTCDate(at.getUTCDate() + 1);
    setNow(at);
    const email = `${uniqueId('night')}@example.com`;
    const order = await s.order({ customerEmail: email });
    const morning = new Date(at);
    morning.setUTCDate(morning.getUTCDate() + 1);
    morning.setUTCHours(9, 0, 0, 0);
    const [deferred] = await until(
      () => requestsOf(order.id),
      (r) => new Date(r[0].send_at).getTime() === morning.getTime(),
    );
    expect(deferred.status).toBe('scheduled');
    expect(mailsTo(email)).toEqual([]);
    setNow(new Date(morning.getTime() + 1_000));
    await mail.waitFor((m) => m.to.includes(email));
    await statusOf(order.id, 'sent');
  });

  it("quiet hours without a time zone of their own are read in the order's location's zone (fixed clock)", async () => {
    const s = await shop({ quietHours: { from: '21:00', to: '09:00' } });
    const location = await rest(server, 'POST', `${s.b}/locations`, {
      tenant: s.tenant,
      body: { name: 'Clifton', metadata: { pos: 'KHI-CLIFTON' }, timeZone: 'Asia/Karachi' },
    });
    expect(location.status).toBe(201);
    // 17:00 UTC is 22:00 in Karachi (UTC+5, no daylight saving): inside the window there, not in UTC.
    const at = new Date();
    at.setUTCHours(17, 0, 0, 0);
    if (at.getTime() <= Date.now()) at.setUTCDate(at.getUTCDate() + 1);
    setNow(at);
    const karachi = `${uniqueId('khi')}@example.com`;
    const there = await s.order({ customerEmail: karachi, externalLocationId: 'KHI-CLIFTON' });
    const morning = new Date(at.getTime() + 11 * 3_600_000); // 09:00 in Karachi, 04:00 UTC
    const [deferred] = await until(
      () => requestsOf(there.id),
      (r) => new Date(r[0].send_at).getTime() === morning.getTime(),
    );
    expect(deferred.status).toBe('scheduled');
    // An order of no known location is read in the business's zone (none set: UTC), where 17:00 is not quiet.
    const elsewhere = await s.order({ customerEmail: `${uniqueId('utc')}@example.com` });
    await statusOf(elsewhere.id, 'sent');
    expect(mailsTo(karachi)).toEqual([]);
    // The dry run reads the same zone, at the real time of the call (the API has no test clock): in Karachi's quiet
    // hours it waits for 09:00 there (04:00 UTC), else it sends at once.
    const before = Date.now();
    const dry = await rest(server, 'POST', `${s.b}/feedback-flows/${s.flow}/simulate`, {
      tenant: s.tenant,
      body: { order: { externalOrderId: 'dry-1', externalLocationId: 'KHI-CLIFTON', total: 10, currency: 'PKR', customerEmail: 'a@example.com' } },
    });
    expect(dry.status).toBe(200);
    const sendAt = new Date(dry.body.data.sendAt).getTime();
    const karachiHour = (new Date(before).getUTCHours() + 5) % 24;
    if (karachiHour >= 21 || karachiHour < 9) {
      const nineThere = new Date(before);
      nineThere.setUTCHours(4, 0, 0, 0);
      if (nineThere.getTime() <= before) nineThere.setUTCDate(nineThere.getUTCDate() + 1);
      expect(new Date(sendAt).toISOString()).toBe(nineThere.toISOString());
    } else {
      expect(sendAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(sendAt).toBeLessThanOrEqual(Date.now());
    }
    setNow(new Date(morning.getTime() + 1_000));
    await mail.waitFor((m) => m.to.includes(karachi));
    await statusOf(there.id, 'sent');
  });

  it('the reminder goes once, then the request expires', async () => {
    const s = await shop({ reminderAfterHours: 1, expiresAfterHours: 24 });
    const email = `${uniqueId('remind')}@example.com`;
    const order = await s.order({ customerEmail: email });
    await statusOf(order.id, 'sent');
    setNow(new Date(Date.now() + 61 * 60_000));
    const reminder = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Reminder:'));
    expect(linkIn(reminder)).toBe(linkIn(mailsTo(email)[0]));
    await until(
      () => requestsOf(order.id),
      (r) => r[0].reminded_at != null && r[0].locked_by == null,
    );
    setNow(new Date(Date.now() + 3 * 3_600_000));
    await until(
      () => requestsOf(order.id),
      (r) => r[0].locked_by == null && new Date(r[0].due_at).getTime() > fixedNow!.getTime(),
    );
    setNow(new Date(Date.now() + 25 * 3_600_000));
    await statusOf(order.id, 'expired');
    expect(mailsTo(email)).toHaveLength(2);
  });

  it('a restart between scheduling and sending still sends once; two workers never send twice', async () => {
    const s = await shop({ throttleDays: 0 });
    await worker?.stop();
    worker = undefined;
    const emails = Array.from({ length: 20 }, () => `${uniqueId('restart')}@example.com`);
    const orders = [];
    for (const customerEmail of emails) orders.push(await s.order({ customerEmail }));
    // One was leased by a process that died (kill -9): its lease runs out and another takes it.
    await rows(server, "update feedback_request set locked_by = 'dead:1', locked_until = now() - interval '1 second' where order_id = ?", [orders[0].id]);
    const [a, b] = await Promise.all([startWorker(), startWorker()]);
    try {
      for (const o of orders) await statusOf(o.id, 'sent');
    } finally {
      await a.stop();
      await b.stop();
      worker = await startWorker();
    }
    for (const e of emails) expect(mailsTo(e)).toHaveLength(1);
  });

  it('the same order posted 100 times at once creates one request', async () => {
    const s = await shop({ delayMinutes: 600 });
    const body = { externalOrderId: uniqueId('burst'), total: '10', currency: 'PKR', metadata: { source: 'test' }, customerEmail: 'burst@example.com' };
    const answers = await Promise.all(Array.from({ length: 100 }, () => postWebhook(server, s.fx.business, body, { secret: s.secret })));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(await requestsOf(answers[0].body.data.id)).toHaveLength(1);
  });

  it('order.accepted flows: the webhook repeat and the API status update', async () => {
    const s = await shop({ trigger: 'order.accepted', delayMinutes: 600 });
    const order = await s.order();
    expect(await requestsOf(order.id)).toEqual([]);
    await postWebhook(
      server,
      s.fx.business,
      { externalOrderId: order.externalOrderId, total: '1250', currency: 'PKR', metadata: { source: 'test' }, payment: true },
      { secret: s.secret },
    );
    expect(await requestsOf(order.id)).toEqual([expect.objectContaining({ trigger: 'order.accepted', status: 'scheduled' })]);
    const api = await rest(server, 'POST', `${s.b}/orders`, {
      tenant: s.tenant,
      body: { externalOrderId: uniqueId('api'), total: 10, currency: 'PKR', status: 'PENDING', customerEmail: 'api@example.com' },
    });
    expect(await requestsOf(api.body.data.id)).toEqual([]);
    const moved = await rest(server, 'PATCH', `${s.b}/orders/${api.body.data.id}`, { tenant: s.tenant, body: { status: 'ACCEPTED' } });
    expect(moved.status).toBe(200);
    expect(await requestsOf(api.body.data.id)).toEqual([expect.objectContaining({ trigger: 'order.accepted', status: 'scheduled' })]);
  });

  it('conditions and priority: the first enabled matching flow wins', async () => {
    const s = await shop({ name: 'Big orders', priority: 1, conditions: { minTotal: 1000 }, delayMinutes: 600 });
    const small = await rest(server, 'POST', `${s.b}/feedback-flows`, {
      tenant: s.tenant,
      body: { name: 'Delivery', priority: 2, survey: s.fx.survey, delayMinutes: 600, conditions: { metadata: { orderType: 'delivery' } } },
    });
    const big = await s.order({ total: '5000', metadata: { orderType: 'delivery' } });
    const delivery = await s.order({ total: '50', metadata: { orderType: 'delivery' } });
    const neither = await s.order({ total: '50' });
    expect((await requestsOf(big.id)).map((r) => r.flow_id)).toEqual([s.flow]);
    expect((await requestsOf(delivery.id)).map((r) => r.flow_id)).toEqual([small.body.data.id]);
    expect(await requestsOf(neither.id)).toEqual([]);
  });
});

describe('SMS', () => {
  it('sends through the gateway with the link; an inbound STOP opts the number out', async () => {
    const s = await shop({ channels: ['sms', 'email'], throttleDays: 0 });
    const phone = `+92300${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const order = await s.order({ customerEmail: undefined, customerPhoneNumber: phone });
    const got = await sms
      .waitFor((r) => r.body.includes(phone))
      .catch(async (e) => {
        throw new Error(`${e.message} ${JSON.stringify(await requestsOf(order.id))}`);
      });
    const message = JSON.parse(got.body);
    expect(message.to).toBe(phone);
    expect(message.body).toMatch(/\/r\/[A-Za-z0-9_-]{16} Reply STOP to opt out\.$/);
    expect(message.body).toMatch(/^Karachi Kitchen: /); // who is asking, first (issue 36)
    // With the restaurant's name first (issue 36) the default text no longer fits one segment: at most two (GSM 7-bit).
    expect(message.body.length).toBeLessThanOrEqual(306);
    expect((await statusOf(order.id, 'sent'))[0].channel).toBe('sms');

    const inbound = (headers: Record<string, string>, body: string) =>
      fetch(`${server.url}/webhooks/sms/inbound`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    expect((await inbound({ authorization: 'Bearer wrong' }, `From=${encodeURIComponent(phone)}&Body=STOP`)).status).toBe(401);
    const stop = await inbound({ authorization: `Bearer ${INBOUND_SECRET}` }, `From=${encodeURIComponent(phone)}&Body=stop`);
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ object: 'smsinbound', data: { stop: true, businesses: 1, held: false } });
    const again = await s.order({ customerEmail: undefined, customerPhoneNumber: phone });
    expect((await statusOf(again.id, 'suppressed'))[0].reason).toBe('opted_out');
    // Opted out of SMS only: with an e-mail the next channel takes it.
    const email = `${uniqueId('fallback')}@example.com`;
    const third = await s.order({ customerEmail: email, customerPhoneNumber: phone });
    expect((await statusOf(third.id, 'sent'))[0].channel).toBe('email');
  });

  it('a channel that refuses for good hands over to the next in the fallback order', async () => {
    const s = await shop({ channels: ['sms', 'email'], throttleDays: 0 });
    const email = `${uniqueId('refused')}@example.com`;
    const order = await s.order({ customerEmail: email, customerPhoneNumber: '+923991234567' });
    const [sent] = await statusOf(order.id, 'sent');
    expect(sent.channel).toBe('email');
    expect(sent.error).toMatch(/HTTP 400/);
    expect(mailsTo(email)).toHaveLength(1);
    // With no other channel, the refusal ends the request failed, with the provider's words.
    const only = await shop({ channels: ['sms'], throttleDays: 0 });
    const alone = await only.order({ customerEmail: undefined, customerPhoneNumber: '+923997654321' });
    const [failed] = await statusOf(alone.id, 'failed');
    expect(failed.error).toMatch(/HTTP 400 .*invalid number/);
  });

  it('with no sender for the channel the request ends failed with the reason', async () => {
    const s = await shop({ channels: ['sms'] });
    await worker?.stop();
    const bare = await startWorker({ senders: {} });
    try {
      const order = await s.order({ customerPhoneNumber: '+923001112233' });
      const [failed] = await statusOf(order.id, 'failed');
      expect(failed.error).toBe('no sender configured for SMS (set TWILIO_* or SMS_GATEWAY_URL)');
    } finally {
      await bare.stop();
      worker = await startWorker();
    }
  });
});

describe('simulate and opt-out API', () => {
  it('answers whether an order matches, why not, when, on which channel and the message; nothing stored', async () => {
    const s = await shop({ conditions: { minTotal: 1000 }, delayMinutes: 30 });
    const sim = (order: unknown) => rest(server, 'POST', `${s.b}/feedback-flows/${s.flow}/simulate`, { tenant: s.tenant, body: { order } });
    const yes = await sim({ externalOrderId: 'SIM-1', total: 2000, currency: 'PKR', customerEmail: 'sim@example.com', customerName: 'Sim' });
    expect(yes.status).toBe(200);
    expect(yes.body).toEqual({
      object: 'feedbackflowsimulation',
      data: expect.objectContaining({
        object: 'feedbackflowsimulation',
        matches: true,
        reasons: [],
        channel: 'email',
        suppression: null,
        subject: 'How was your order at Karachi Kitchen?',
        body: expect.stringMatching(/Hi Sim.*SIM-1.*\/r\//),
      }),
    });
    expect(yes.body.data.sendAt).toBeGreaterThan(Date.now() + 29 * 60_000);
    const no = await sim({ externalOrderId: 'SIM-2', total: 10, currency: 'PKR' });
    expect(no.body.data).toEqual(expect.objectContaining({ matches: false, reasons: ['total 10 is under 1000'], sendAt: null }));
    const stored = await s.order({ total: '5000', customerEmail: 'stored@example.com' });
    expect((await sim(stored.id)).body.data).toEqual(expect.objectContaining({ matches: true, channel: 'email' }));
    expectError(await sim(42), 400, 'validation_failed');
    expectError(await sim({ total: 'lots' }), 400, 'validation_failed');
    const suppressed = await rest(server, 'POST', `${s.b}/feedback-suppressions`, { tenant: s.tenant, body: { email: 'Sim@Example.com' } });
    expect(suppressed.status).toBe(200);
    expect((await sim({ externalOrderId: 'SIM-3', total: 2000, currency: 'PKR', customerEmail: 'sim@example.com' })).body.data.suppression).toBe('opted_out');
    expectError(await rest(server, 'POST', `${s.b}/feedback-suppressions`, { tenant: s.tenant, body: { email: 'not an address' } }), 400, 'validation_failed');
    expect(await rows(server, 'select count(*)::int as n from feedback_request where business_id = ? and order_id <> ?', [s.fx.business, stored.id])).toEqual([
      { n: 0 },
    ]);
  });
});
