import { Writable } from 'node:stream';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { guestSurvey } from '../helpers/guest.js';
import { createTenant } from '../helpers/auth.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { rest } from '../rest/rest.helpers.js';

/**
 * Issue 33, found by reading: bearer capabilities and guests' contacts reached the logs. The access log printed the
 * feedback link's token (`/r/<token>` is the key to that request), and a provider's error (an SMTP refusal, an SMS
 * gateway's answer) was logged as the provider wrote it, echoing the guest's e-mail address or phone number.
 */
jest.setTimeout(60_000);

/** Every line the service logs, as parsed records (and as raw text, to search for what must never appear). */
const lines: string[] = [];
const logs = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

// An SMTP server that defers every recipient, echoing the address (as real ones do: "450 <ana@...>: try later").
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onRcptTo(address, _session, callback) {
    callback(Object.assign(new Error(`<${address.address}>: mailbox busy, try again later`), { responseCode: 450 }));
  },
});
let gateway: Receiver;
let server: TestServer;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  // An SMS gateway that is down for a while, and says which number it could not reach.
  gateway = await startReceiver((r) => ({
    status: 503,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: `cannot deliver to ${JSON.parse(r.body).to} right now` }),
  }));
  const { port } = smtp.server.address() as { port: number };
  server = await startTestServer({
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMS_GATEWAY_URL: `${gateway.url}/sms`, MAIL_FROM: 'Karachi Kitchen <feedback@example.com>' },
    workers: true,
    logger: pino({ level: 'info' }, sink),
  });
});
afterAll(async () => {
  await server?.stop();
  await gateway?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** A business whose one flow on `channels` turns an order into a feedback request at once; answers the request's row. */
async function requestFor(channels: string[], customer: Record<string, string>) {
  const fx = await guestSurvey(server, { steps: [['nps', { type: 'nps', required: true }]] });
  const { secret } = await connectCustomIntegration(server.orm.em.fork(), fx.business);
  const flow = await rest(server, 'POST', `/v2/businesses/${fx.business}/feedback-flows`, {
    tenant: fx.tenant,
    body: { name: uniqueId('flow'), survey: fx.survey, channels, delayMinutes: 0, quietHours: null, throttleDays: 0 },
  });
  expect(flow.status).toBe(201);
  const order = await postWebhook(
    server,
    fx.business,
    { externalOrderId: uniqueId('ord'), total: '1250', currency: 'PKR', metadata: { source: 'test' }, ...customer },
    { secret },
  );
  expect(order.status).toBe(200);
  const [request] = await rows(server, 'select id, token from feedback_request where order_id = ?', [order.body.data.id]);
  return request as { id: string; token: string };
}

/** Waits for the log record that says `request`'s send failed. */
async function sendFailure(request: string) {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const found = logs().find((l) => l.request === request && l.msg === 'feedback request send failed; will retry');
    if (found) return found;
  }
  throw new Error(`no send failure logged for ${request}:\n${lines.join('\n')}`);
}

/** The request's stored error, once the worker has recorded it (just after logging it). */
async function storedError(request: string): Promise<string> {
  for (const until = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const [row] = await rows(server, 'select error from feedback_request where id = ?', [request]);
    if (row.error || Date.now() > until) return row.error;
  }
}

describe('logs', () => {
  it('show a feedback link as /r/:token in the access log, never its token (nor do the metrics)', async () => {
    const { token } = await requestFor(['email'], { customerEmail: `${uniqueId('guest')}@example.com` });
    const opened = await fetch(`${server.url}/r/${token}`, { redirect: 'manual' });
    expect(opened.status).toBe(302);
    expect((await fetch(`${server.url}/r/${token}/unsubscribe`)).status).toBe(200);
    expect((await fetch(`${server.url}/r/${token}/elsewhere`)).status).toBe(404);
    const access = logs().filter((l) => l.msg === 'request' && String(l.path).startsWith('/r/'));
    expect(access.map((l) => l.path)).toEqual(expect.arrayContaining(['/r/:token', '/r/:token/unsubscribe', '/r/:token/elsewhere']));
    expect(lines.filter((l) => l.includes(token))).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('route="/r/:token"');
    expect(metrics).not.toContain(token);
  });

  it('name the request and the channel of a refused e-mail, never the address the SMTP server echoed', async () => {
    const email = `${uniqueId('ana')}@example.com`;
    const request = await requestFor(['email'], { customerEmail: email });
    const failure = await sendFailure(request.id);
    expect(lines.filter((l) => l.toLowerCase().includes(email.toLowerCase()))).toEqual([]);
    expect(failure).toEqual(expect.objectContaining({ request: request.id, channel: 'email', error: expect.stringMatching(/^smtp: 450 .*mailbox busy/) }));
    // Nor does the request's error, which the API and the feedbackrequest.* events show.
    const stored = await storedError(request.id);
    expect(stored).toMatch(/mailbox busy/);
    expect(stored.toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('name the request and the channel of a failed SMS, never the number the gateway echoed', async () => {
    const phone = `+92300${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const request = await requestFor(['sms'], { customerPhoneNumber: phone });
    const failure = await sendFailure(request.id);
    for (const form of [phone, phone.slice(1), phone.slice(3)]) expect(lines.filter((l) => l.includes(form))).toEqual([]);
    expect(failure).toEqual(
      expect.objectContaining({ request: request.id, channel: 'sms', error: expect.stringMatching(/^gateway: HTTP 503 .*cannot deliver/) }),
    );
    const stored = await storedError(request.id);
    expect(stored).toMatch(/cannot deliver/);
    expect(stored).not.toContain(phone.slice(3));
  });

  it("show an alert recipient's confirmation link as /alerts/:token, and name the recipient and the channel of its failed confirmation, never the address", async () => {
    const tenant = await createTenant(server);
    const email = `${uniqueId('chef')}@example.com`;
    const made = await rest(server, 'POST', `/v2/businesses/${tenant.businessId}/alert-rules`, {
      tenant,
      body: { name: 'Low', when: { maxRating: 2 }, notify: [{ channel: 'email', to: email }] },
    });
    expect(made.status).toBe(201);
    const [recipient] = await rows(server, 'select id, token from alert_recipient where business_id = ?', [tenant.businessId]);
    let failure: Record<string, unknown> | undefined;
    for (const until = Date.now() + 15_000; !failure && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      failure = logs().find((l) => l.recipient === recipient.id && l.msg === 'alert confirmation send failed; will retry');
    }
    expect(failure).toEqual(expect.objectContaining({ recipient: recipient.id, channel: 'email', error: expect.stringMatching(/^smtp: 450 .*mailbox busy/) }));

    expect((await fetch(`${server.url}/alerts/${recipient.token}`)).status).toBe(200);
    expect((await fetch(`${server.url}/alerts/${recipient.token}/decline`, { method: 'POST' })).status).toBe(200);
    const access = logs().filter((l) => l.msg === 'request' && String(l.path).startsWith('/alerts/'));
    expect(access.map((l) => l.path)).toEqual(expect.arrayContaining(['/alerts/:token', '/alerts/:token/decline']));
    expect(lines.filter((l) => l.includes(recipient.token) || l.toLowerCase().includes(email.toLowerCase()))).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('route="/alerts/:token"');
    expect(metrics).not.toContain(recipient.token);
  });
});
