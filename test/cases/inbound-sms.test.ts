import { createHmac, randomInt } from 'node:crypto';
import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { ATTACKER, RIGHTFUL, requestFrom } from '../helpers/from-address.js';
import { runAdmin } from '../helpers/process.js';
import { heldSmsCommand } from '../../src/cli/held-sms.command.js';
import { expectError } from '../rest/rest.helpers.js';
import { rows, uniqueId } from '../ingest/ingest-helpers.js';
import { restaurant, type Restaurant } from './case.fixtures.js';
import { until } from '../helpers/until.js';

/**
 * Issue 48, item 4 over real HTTP, with a real SMS gateway (and a Twilio stand-in) on 127.0.0.1: every business texts
 * guests from the service's one number, so a guest's text back joins a case thread only when it can be tied to that
 * one thread (its reply code, or one business alone texting the number lately), and is otherwise held for the
 * operator; STOP still opts the number out everywhere; the endpoint takes Twilio's signature, or a secret in a header
 * only, and throttles failures per client address.
 */
jest.setTimeout(120_000);

const SECRET = 'inbound-secret-0123456789';
const AUTH = { authorization: `Bearer ${SECRET}` };

let server: TestServer;
let sms: Receiver;
let a: Restaurant;
let b: Restaurant;
/** Texts guests only by feedback requests (a flow by SMS), never from a case. */
let c: Restaurant;

/** A restaurant whose bad answers open cases. */
async function withCases(s: TestServer, name: string): Promise<Restaurant> {
  const r = await restaurant(s, name);
  await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
  return r;
}

beforeAll(async () => {
  sms = await startReceiver(() => ({ status: 201, body: '{}' }));
  server = await startTestServer({ env: { SMS_GATEWAY_URL: `${sms.url}/sms`, SMS_INBOUND_SECRET: SECRET }, workers: true });
  a = await withCases(server, 'Karahi House');
  b = await withCases(server, 'Burger Barn');
  c = await restaurant(server, 'Chai Corner');
  await c.made('/feedback-flows', { name: 'Ask by SMS', survey: c.survey, channels: ['sms'], delayMinutes: 0, quietHours: null, throttleDays: 0 });
});
afterAll(async () => {
  await server?.stop();
  await sms?.close();
});

const phoneNumber = () => `+92300${String(randomInt(10_000_000)).padStart(7, '0')}`;
const smsTo = (receiver: Receiver, phone: string, starts: string) =>
  receiver.waitFor((q) => {
    const m = JSON.parse(q.body) as { to: string; body: string };
    return m.to === phone && m.body.startsWith(starts);
  }, 30_000);

/** The reply code at the end of a case's SMS, as the guest reads it (undefined when there is none). */
const codeIn = (text: string) => /\(Ref #([A-Z0-9]{4}): keep it in your reply\)$/.exec(text)?.[1];

/** A case of `r` whose guest is `phone`, answered by SMS; its id and the reply code the guest received. */
async function thread(
  r: Restaurant,
  phone: string,
  receive = (p: string, starts: string) => smsTo(sms, p, starts).then((q) => (JSON.parse(q.body) as { body: string }).body),
) {
  const order = await r.order({ customerPhoneNumber: phone });
  const opened = await r.caseOf(await r.answer({ taste: 1, text: 'Cold biryani', order }));
  const reply = await r.call('POST', `/cases/${opened.id}/messages`, { body: `Sorry about your order (${opened.id})`, channel: 'sms' });
  expect(reply.status).toBe(201);
  const text = await receive(phone, `Sorry about your order (${opened.id})`);
  return { id: opened.id as string, code: codeIn(text) as string };
}

/** The guest's texts in a case's thread, oldest first. */
const guestTexts = async (r: Restaurant, caseId: string) =>
  ((await r.call('GET', `/cases/${caseId}/messages`)).body.data as Array<{ direction: string; body: string }>)
    .filter((m) => m.direction === 'in')
    .map((m) => m.body);

/** The texts held for the operator from this number. */
const heldFrom = (phone: string) => rows(server, 'select id, body, reason, candidates from held_sms where sender = ? order by id', [phone]);

/** Moves a thread's SMS `days` into the past (what the windows measure). */
const age = (caseId: string, days: number) =>
  rows(server, `update case_message set created_at = created_at - make_interval(days => ?::int) where case_id = ?`, [days, caseId]);

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const inbound = (from: string, body: string, headers: Record<string, string> = AUTH, address = '127.0.0.1', query = '') =>
  requestFrom(address, `${server.url}/webhooks/sms/inbound${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form({ From: from, Body: body }),
  });

const heldMetric = async (s: TestServer) =>
  Number(/^sms_inbound_total\{outcome="held"\} (\d+)$/m.exec(await (await fetch(`${s.url}/metrics`)).text())?.[1] ?? 0);

describe("a guest's text reaches one thread", () => {
  it('two restaurants text one guest: the answer with card digits reaches neither thread, is held for the operator, who attaches it', async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    const tb = await thread(b, phone);
    const heldBefore = await heldMetric(server);

    const words = 'Please refund to my card 4242 4242 4242 4242, exp 09/29';
    const answered = await inbound(phone, words);
    expect(answered.status).toBe(200);
    // Neither business sees it: not in a thread, not in an event (webhooks and subscriptions carry events).
    expect(await guestTexts(a, ta.id)).toEqual([]);
    expect(await guestTexts(b, tb.id)).toEqual([]);
    for (const r of [a, b]) {
      const events = (await r.call('GET', '/events?pageSize=100')).body.data as Array<{ type: string; data: { object: { direction?: string } } }>;
      expect(events.filter((e) => e.type === 'casemessage.created' && e.data.object.direction === 'in')).toEqual([]);
    }
    expect(answered.body).toEqual({ object: 'smsinbound', data: { stop: false, businesses: 0, held: true } });
    const [held] = await heldFrom(phone);
    expect(held).toEqual({
      id: expect.stringMatching(/^hsms_/),
      body: words,
      reason: 'several_businesses',
      candidates: expect.arrayContaining([ta.id, tb.id]),
    });
    expect(held.candidates).toHaveLength(2);
    expect(await heldMetric(server)).toBe(heldBefore + 1);

    // The operator's CLI (npm run admin -- held-sms) lists it, refuses a case that never texted the number, and
    // attaches it to the right one; the refusals are run in-process (a CLI process costs seconds of start-up).
    const db = { DATABASE_URL: server.db.url };
    const listed = await runAdmin(['held-sms'], db);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).data).toContainEqual({
      id: held.id,
      object: 'heldsms',
      sender: phone,
      body: words,
      reason: 'several_businesses',
      candidates: held.candidates,
      receivedAt: expect.any(Number),
    });
    const stranger = await thread(a, phoneNumber());
    await expect(heldSmsCommand.run({ attach: held.id, case: stranger.id }, server.orm)).rejects.toThrow(
      `Case ${stranger.id} had not texted ${phone} when this SMS came; it may join one of`,
    );
    const attached = await runAdmin(['held-sms', '--attach', held.id, '--case', ta.id], db);
    expect(attached.code).toBe(0);
    expect(JSON.parse(attached.stdout).data).toMatchObject({
      object: 'casemessage',
      business: a.tenant.businessId,
      case: ta.id,
      direction: 'in',
      channel: 'sms',
      body: words,
      author: null,
    });
    expect(await guestTexts(a, ta.id)).toEqual([words]);
    expect(await guestTexts(b, tb.id)).toEqual([]);
    expect(await heldFrom(phone)).toEqual([]);
    await expect(heldSmsCommand.run({ drop: held.id }, server.orm)).rejects.toThrow(`Held SMS ${held.id} not found`);
  });

  it('the operator drops a held text; the CLI says how to use it', async () => {
    const phone = phoneNumber();
    expect((await inbound(phone, 'wrong number?')).body.data.held).toBe(true);
    const [held] = await heldFrom(phone);
    expect(await heldSmsCommand.run({ drop: held.id }, server.orm)).toEqual({ id: held.id, object: 'heldsms', deleted: true });
    expect(await heldFrom(phone)).toEqual([]);
    await expect(heldSmsCommand.run({ attach: held.id }, server.orm)).rejects.toThrow('--case is required');
    await expect(heldSmsCommand.run({ drop: held.id, attach: held.id }, server.orm)).rejects.toThrow('--attach and --drop go alone');
  });

  it('the reply code ties a text to its one thread, whoever else texted the number; only a thread of that number', async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    const tb = await thread(b, phone);
    const elsewhere = await thread(b, phoneNumber());
    expect([ta.code, tb.code, elsewhere.code]).toEqual([expect.stringMatching(/^[A-HJKMNP-TW-Z2-9]{4}$/), expect.any(String), expect.any(String)]);

    expect((await inbound(phone, `Yes, Friday works #${ta.code}`)).body.data.held).toBe(false);
    // In lower case and without '#', as guests type it.
    expect((await inbound(phone, `${tb.code.toLowerCase()} the refund arrived, thanks`)).body.data.held).toBe(false);
    // The code of a thread with another number, or of both threads, ties nothing.
    expect((await inbound(phone, `About #${elsewhere.code}`)).body.data.held).toBe(true);
    expect((await inbound(phone, `#${ta.code} and #${tb.code}`)).body.data.held).toBe(true);

    expect(await guestTexts(a, ta.id)).toEqual([`Yes, Friday works #${ta.code}`]);
    expect(await guestTexts(b, tb.id)).toEqual([`${tb.code.toLowerCase()} the refund arrived, thanks`]);
    expect(await guestTexts(b, elsewhere.id)).toEqual([]);
    expect((await heldFrom(phone)).map((h) => h.reason)).toEqual(['several_businesses', 'several_threads']);
  });

  it('without a code, a text joins the latest thread of the one business that texted the number in 7 days; a code ties for 30', async () => {
    const phone = phoneNumber();
    const tb = await thread(b, phone);
    await age(tb.id, 10);
    const ta = await thread(a, phone);
    expect((await inbound(phone, 'Thanks, see you Friday')).body.data.held).toBe(false);
    const later = await thread(a, phone);
    expect((await inbound(phone, 'The second visit was lovely')).body.data.held).toBe(false);
    expect(await guestTexts(a, ta.id)).toEqual(['Thanks, see you Friday']);
    expect(await guestTexts(a, later.id)).toEqual(['The second visit was lovely']);
    expect(await guestTexts(b, tb.id)).toEqual([]);

    // Nobody texted in 7 days: held; B's code still ties its thread of 10 days ago, not past 30 days.
    await age(ta.id, 10);
    await age(later.id, 10);
    expect((await inbound(phone, 'Hello?')).body.data.held).toBe(true);
    expect((await inbound(phone, `#${tb.code} is the burger back?`)).body.data.held).toBe(false);
    await age(tb.id, 25);
    expect((await inbound(phone, `#${tb.code} hello again`)).body.data.held).toBe(true);
    expect(await guestTexts(b, tb.id)).toEqual([`#${tb.code} is the burger back?`]);
    expect((await heldFrom(phone)).map((h) => h.reason)).toEqual(['not_recent', 'not_recent']);
    // From a number no case texted: held too.
    const unknown = phoneNumber();
    expect((await inbound(unknown, 'who is this?')).body.data.held).toBe(true);
    expect((await heldFrom(unknown)).map((h) => ({ reason: h.reason, candidates: h.candidates }))).toEqual([{ reason: 'no_thread', candidates: [] }]);
    // A sender that is no phone number (an alphanumeric sender id): its text is held as it came; its STOP is a 400.
    expect((await inbound('PROMO', 'Win a prize')).body.data.held).toBe(true);
    expect((await heldFrom('PROMO')).map((h) => h.reason)).toEqual(['no_thread']);
    const stop = await inbound('PROMO', 'STOP');
    expectError(stop as never, 400, 'validation_failed');
    expect(stop.body.error.details).toEqual([{ field: 'from', message: 'must be a phone number in E.164 (+923001234567)' }]);
    expect(await heldFrom('PROMO')).toHaveLength(1);
  });

  it("another business's feedback request by SMS in 7 days makes a text without a code anyone's", async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    await askedBySms(phone);
    expect((await inbound(phone, 'It was lovely')).body.data.held).toBe(true);
    expect((await inbound(phone, `#${ta.code} Friday then`)).body.data.held).toBe(false);
    expect(await guestTexts(a, ta.id)).toEqual([`#${ta.code} Friday then`]);
    expect((await heldFrom(phone)).map((h) => h.reason)).toEqual(['several_businesses']);
  });

  it('a number texting again and again leaves at most 20 texts held; held texts go once no thread could claim them', async () => {
    // A stranger's number, texted by nobody: every text of theirs would be held, and anyone can text the number.
    const stranger = phoneNumber();
    for (let i = 0; i < 23; i++) {
      const answered = await inbound(stranger, `spam ${i}`);
      expect(answered.status).toBe(200);
      expect(answered.body.data.held).toBe(i < 20);
    }
    expect((await heldFrom(stranger)).map((h) => h.body)).toEqual(Array.from({ length: 20 }, (_, i) => `spam ${i}`));
    // A guest's text from another number is still held for the operator while the stranger's count is full.
    const guest = phoneNumber();
    expect((await inbound(guest, 'Was my order refunded?')).body.data.held).toBe(true);
    // Past the 30 days a reply code works, the stranger's held texts go with the next text held, and their number may
    // leave texts again.
    await rows(server, `update held_sms set created_at = created_at - interval '31 days' where sender = ?`, [stranger]);
    expect((await inbound(guest, 'Hello?')).body.data.held).toBe(true);
    expect((await heldFrom(stranger)).length).toBe(10);
    expect((await inbound(guest, 'Anyone?')).body.data.held).toBe(true);
    expect(await heldFrom(stranger)).toEqual([]);
    expect((await inbound(stranger, 'spam again')).body.data.held).toBe(true);
    expect((await heldFrom(guest)).map((h) => h.body)).toEqual(['Was my order refunded?', 'Hello?', 'Anyone?']);
  });

  it('STOP opts the number out of every business that texted or asked it, tied to a thread or not, and is not held', async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    const tb = await thread(b, phone);
    const d = await withCases(server, 'Dosa Den');
    const td = await thread(d, phone);
    await age(td.id, 40);
    await askedBySms(phone);

    const stop = await inbound(phone, 'STOP');
    expect(stop.body).toEqual({ object: 'smsinbound', data: { stop: true, businesses: 4, held: false } });
    for (const [r, id] of [
      [a, ta.id],
      [b, tb.id],
      [d, td.id],
    ] as const) {
      const refused = await r.call('POST', `/cases/${id}/messages`, { body: 'One more thing', channel: 'sms' });
      expectError(refused, 409, 'conflict');
      expect(refused.body.error.message).toBe('The guest has opted out of SMS from this business: the reply was not sent');
      expect(await guestTexts(r, id)).toEqual([]);
    }
    const asked = await c.made('/orders', { externalOrderId: uniqueId('o'), total: 500, currency: 'PKR', customerPhoneNumber: phone });
    expect(
      await until(
        () => rows(server, 'select status, reason from feedback_request where order_id = ?', [asked]),
        (r) => r[0]?.status === 'suppressed',
      ),
    ).toEqual([{ status: 'suppressed', reason: 'opted_out' }]);
    expect(await heldFrom(phone)).toEqual([]);

    // Tied to one thread, the STOP shows in it: the restaurant sees why its replies end.
    const only = phoneNumber();
    const alone = await thread(a, only);
    expect((await inbound(only, 'stop')).body).toEqual({ object: 'smsinbound', data: { stop: true, businesses: 1, held: false } });
    expect(await guestTexts(a, alone.id)).toEqual(['stop']);
  });
});

/** Chai Corner asks the guest about an order by SMS; answers once the request is recorded sent (its SMS counts from then). */
async function askedBySms(phone: string) {
  const order = await c.made('/orders', { externalOrderId: uniqueId('o'), total: 500, currency: 'PKR', customerPhoneNumber: phone });
  await smsTo(sms, phone, 'Chai Corner: ');
  await until(
    () => rows(server, 'select status from feedback_request where order_id = ?', [order]),
    (r) => r[0]?.status === 'sent',
  );
}

describe('the shared secret (no Twilio)', () => {
  it('is taken from Authorization: Bearer or X-Sms-Inbound-Secret, whole; never from the query string', async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    const wrong: Record<string, string>[] = [
      { authorization: 'Bearer wrong-secret-0123456789' },
      { authorization: `Bearer ${SECRET.slice(0, -1)}` },
      { 'x-sms-inbound-secret': `${SECRET}x` },
      {},
    ];
    for (const headers of wrong) {
      const refused = await inbound(phone, 'not me', headers);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({
        code: 'unauthorized',
        message: 'A valid inbound SMS secret is required: Authorization: Bearer <SMS_INBOUND_SECRET> or X-Sms-Inbound-Secret: <SMS_INBOUND_SECRET>',
      });
    }
    for (const headers of [{}, AUTH]) {
      const query = await inbound(phone, 'secret in the address', headers, '127.0.0.1', `?secret=${SECRET}`);
      expect(query.status).toBe(400);
      expect(query.body.error).toMatchObject({
        code: 'bad_request',
        message:
          'The inbound SMS secret is not taken from the query string (addresses end up in logs): send it as Authorization: Bearer <SMS_INBOUND_SECRET> or X-Sms-Inbound-Secret: <SMS_INBOUND_SECRET>, and remove ?secret= from the address',
      });
    }
    expect((await inbound(phone, 'By bearer')).status).toBe(200);
    expect((await inbound(phone, 'By header', { 'x-sms-inbound-secret': SECRET })).status).toBe(200);
    expect(await guestTexts(a, ta.id)).toEqual(['By bearer', 'By header']);
    expect(await heldFrom(phone)).toEqual([]);
  });

  it('wrong secrets from one address are refused with 429 while the rightful gateway on another keeps working', async () => {
    const phone = phoneNumber();
    const ta = await thread(a, phone);
    const wrong = { authorization: 'Bearer guessed-secret-000000000' };
    for (let i = 0; i < 10; i++) expect((await inbound(phone, `guess ${i}`, wrong, ATTACKER)).status).toBe(401);
    const throttled = await inbound(phone, 'guess 10', wrong, ATTACKER);
    expectError(throttled as never, 429, 'rate_limited');
    // Refused before any comparison: even the right secret tells the guesser nothing now.
    expect((await inbound(phone, 'right secret, wrong address', AUTH, ATTACKER)).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await inbound(phone, `From the gateway ${i}`, AUTH, RIGHTFUL)).status).toBe(200);
    expect(await guestTexts(a, ta.id)).toEqual(['From the gateway 0', 'From the gateway 1', 'From the gateway 2']);
    expect(await heldFrom(phone)).toEqual([]);
  });
});

describe('Twilio as the provider', () => {
  const TOKEN = 'twilio-auth-token-0123456789abcdef';
  const PUBLIC_URL = 'https://feedback.example.com';
  let twilioServer: TestServer;
  let twilio: Receiver;
  let t: Restaurant;

  beforeAll(async () => {
    twilio = await startReceiver(() => ({ status: 201, headers: { 'content-type': 'application/json' }, body: '{"sid":"SM123"}' }));
    twilioServer = await startTestServer({
      env: {
        TWILIO_ACCOUNT_SID: 'AC0123456789',
        TWILIO_AUTH_TOKEN: TOKEN,
        TWILIO_FROM: '+15005550006',
        TWILIO_API_BASE: twilio.url,
        PUBLIC_URL,
        SMS_INBOUND_SECRET: SECRET,
      },
      workers: true,
    });
    t = await withCases(twilioServer, 'Tikka Town');
  });
  afterAll(async () => {
    await twilioServer?.stop();
    await twilio?.close();
  });

  /** As Twilio signs (its security docs): HMAC-SHA1 with the auth token of the URL, then each parameter's name and value by name; base64. */
  const signed = (token: string, url: string, fields: Record<string, string>) =>
    createHmac('sha1', token)
      .update(
        Object.keys(fields)
          .sort()
          .reduce((data, name) => data + name + fields[name], url),
      )
      .digest('base64');
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string>) =>
    requestFrom('127.0.0.1', `${twilioServer.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: form(fields),
    });
  const fromTwilio = (q: ReceivedRequest) => Object.fromEntries(new URLSearchParams(q.body)) as Record<string, string>;

  it('a text Twilio signed for {PUBLIC_URL}/webhooks/sms/inbound is taken; any other signature is 401 and keeps nothing', async () => {
    const phone = phoneNumber();
    const tt = await thread(t, phone, async (p, starts) => {
      const q = await twilio.waitFor((r) => fromTwilio(r).To === p && fromTwilio(r).Body.startsWith(starts), 30_000);
      return fromTwilio(q).Body;
    });
    const fields = { MessageSid: 'SM0123', AccountSid: 'AC0123456789', From: phone, To: '+15005550006', Body: `Thank you! #${tt.code}`, NumMedia: '0' };
    const path = '/webhooks/sms/inbound';

    const taken = await post(path, fields, { 'x-twilio-signature': signed(TOKEN, `${PUBLIC_URL}${path}`, fields) });
    expect(taken.status).toBe(200);
    expect(taken.headers['content-type']).toMatch(/^text\/xml/);
    expect(taken.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    // The query string is part of what Twilio signs.
    const withQuery = { ...fields, Body: 'Signed with a query', MessageSid: 'SM0124' };
    expect(
      (await post(`${path}?source=twilio`, withQuery, { 'x-twilio-signature': signed(TOKEN, `${PUBLIC_URL}${path}?source=twilio`, withQuery) })).status,
    ).toBe(200);

    const refusals: Record<string, string>[] = [
      { 'x-twilio-signature': signed('another-token', `${PUBLIC_URL}${path}`, fields) },
      // Signed for the address this test reached, not the one Twilio calls (PUBLIC_URL).
      { 'x-twilio-signature': signed(TOKEN, `${twilioServer.url}${path}`, fields) },
      // Signed, then the words changed on the way.
      { 'x-twilio-signature': signed(TOKEN, `${PUBLIC_URL}${path}`, { ...fields, Body: 'other words' }) },
      {},
      // The gateway's secret is no way in while Twilio is the provider.
      AUTH,
    ];
    for (const headers of refusals) {
      const refused = await post(path, fields, headers);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({
        code: 'unauthorized',
        message: `A valid X-Twilio-Signature is required: Twilio signs with TWILIO_AUTH_TOKEN the address it calls, here ${PUBLIC_URL}${path} (PUBLIC_URL and the path), so its messaging webhook must be exactly that`,
      });
    }
    // Twilio posts from addresses every Twilio account shares: another account's failures (here 30 wrong signatures
    // from the very address Twilio uses) never refuse a text Twilio signed for us.
    for (let i = 0; i < 30; i++)
      expect((await post(path, fields, { 'x-twilio-signature': signed('someone-elses-token', `${PUBLIC_URL}${path}`, fields) })).status).toBe(401);
    const after = { ...fields, Body: 'Still heard', MessageSid: 'SM0125' };
    expect((await post(path, after, { 'x-twilio-signature': signed(TOKEN, `${PUBLIC_URL}${path}`, after) })).status).toBe(200);
    const texts = ((await t.call('GET', `/cases/${tt.id}/messages`)).body.data as Array<{ direction: string; body: string }>).filter(
      (m) => m.direction === 'in',
    );
    expect(texts.map((m) => m.body)).toEqual([`Thank you! #${tt.code}`, 'Signed with a query', 'Still heard']);
    expect(await rows(twilioServer, 'select count(*)::int as n from held_sms')).toEqual([{ n: 0 }]);
  });
});
