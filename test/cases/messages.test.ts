import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import { createTenant, issueToken } from '../helpers/auth.js';
import type { Scope } from '../../src/auth/scopes.js';
import type { MailBox } from '../helpers/smtp.js';
import type { Receiver } from '../helpers/receiver.js';
import { rest, expectError, qs } from '../rest/rest.helpers.js';
import { rows, uniqueId } from '../ingest/ingest-helpers.js';
import { restaurant, sleep, type Restaurant, useMessagingServer } from './case.fixtures.js';

/**
 * Issue 35, item 4 over real HTTP: the restaurant replies to a case's guest (REST and GraphQL); the reply reaches a
 * real SMTP server from the restaurant's name, threaded, or a local SMS gateway; opted-out guests are refused and
 * nothing is stored; the guest's SMS back joins the thread.
 */
jest.setTimeout(60_000);

const INBOUND_SECRET = 'inbound-secret-0123456789';
let server: TestServer;
let mail: MailBox;
let sms: Receiver;
let r: Restaurant;

useMessagingServer({ MAIL_FROM: 'Feedback <feedback@example.com>', SMS_INBOUND_SECRET: INBOUND_SECRET }, async (started) => {
  ({ server, mail, sms } = started);
  r = await restaurant(server, 'Karahi House');
  await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ channel: 'email', to: 'alerts@example.com' }] });
});

/** A case whose guest is the customer of an order with these contacts (or no order at all). */
async function caseWith(contact: { customerEmail?: string; customerPhoneNumber?: string } | null) {
  const order = contact ? await r.order(contact) : undefined;
  return r.caseOf(await r.answer({ taste: 1, text: 'Cold biryani', order }));
}
const messages = (c: string, query = '') => r.call('GET', `/cases/${c}/messages${query}`);
const reply = (c: string, body: unknown) => r.call('POST', `/cases/${c}/messages`, body);
const statusOf = async (c: string, id: string, status: string) => {
  for (let i = 0; i < 100; i++) {
    const found = (await messages(c)).body.data.find((m: { id: string }) => m.id === id);
    if (found?.status === status) return found;
    await sleep(100);
  }
  throw new Error(`message ${id} never became ${status}`);
};

describe('replies to the guest', () => {
  it('by e-mail from the restaurant, threaded; the first reply sets firstReplyAt and moves the case to replied', async () => {
    const guest = `${uniqueId('guest')}@example.com`;
    const c = await caseWith({ customerEmail: guest, customerPhoneNumber: '+923001110001' });
    expect(c).toMatchObject({ status: 'open', firstReplyAt: null });

    const first = await reply(c.id, { body: 'We are so sorry about your biryani. May we make it right?' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      object: 'casemessage',
      data: {
        id: expect.stringMatching(/^msg_/),
        object: 'casemessage',
        business: r.tenant.businessId,
        case: c.id,
        direction: 'out',
        channel: 'email',
        body: 'We are so sorry about your biryani. May we make it right?',
        status: 'queued',
        author: r.tenant.userId,
        error: null,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    const replied = (await r.call('GET', `/cases/${c.id}`)).body.data;
    expect(replied).toMatchObject({ status: 'replied', firstReplyAt: first.body.data.createdAt });

    const one = await mail.waitFor((m) => m.to.includes(guest), 30_000);
    expect(one.headers.from).toBe('Karahi House <feedback@example.com>');
    expect(one.headers['reply-to']).toBeUndefined();
    expect(one.subject).toBe('Your feedback to Karahi House');
    expect(one.body).toContain('We are so sorry about your biryani.');
    expect(one.headers['message-id']).toBe(`<${first.body.data.id}@example.com>`);
    expect(one.headers['in-reply-to']).toBeUndefined();
    await statusOf(c.id, first.body.data.id, 'sent');

    // With a Reply-To of its own, the guest's answer goes to the restaurant's inbox.
    expect(
      (await rest(server, 'PATCH', `/v2/businesses/${r.tenant.businessId}`, { tenant: r.tenant, body: { replyTo: 'manager@karahi.example' } })).status,
    ).toBe(200);
    const second = await reply(c.id, { body: 'A free dessert is waiting for you.', channel: 'email' });
    expect(second.status).toBe(201);
    const two = await mail.waitFor((m) => m.to.includes(guest) && m.body.includes('free dessert'), 30_000);
    expect(two.subject).toBe('Re: Your feedback to Karahi House');
    expect(two.headers['reply-to']).toBe('manager@karahi.example');
    expect(two.headers['message-id']).toBe(`<${second.body.data.id}@example.com>`);
    expect(two.headers['in-reply-to']).toBe(one.headers['message-id']);
    expect(two.headers.references).toBe(one.headers['message-id']);
    await statusOf(c.id, second.body.data.id, 'sent');

    // The thread oldest first; firstReplyAt stays the first reply's.
    expect((await messages(c.id)).body.data.map((m: { id: string; status: string }) => [m.id, m.status])).toEqual([
      [first.body.data.id, 'sent'],
      [second.body.data.id, 'sent'],
    ]);
    expect((await r.call('GET', `/cases/${c.id}`)).body.data.firstReplyAt).toBe(first.body.data.createdAt);
    expect((await r.call('GET', `/cases/${c.id}/messages/${second.body.data.id}`)).body.data).toMatchObject({ id: second.body.data.id, status: 'sent' });
    const events = (await r.call('GET', `/events${qs({ pageSize: '100' })}`)).body.data.filter(
      (e: { data: { object: { id: string; case?: string } } }) => e.data.object.id === c.id || e.data.object.case === c.id,
    );
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual([
      'case.opened',
      'case.updated',
      'casemessage.created',
      'casemessage.created',
      'casemessage.updated',
      'casemessage.updated',
    ]);
    expect(mail.mails.filter((m) => m.to.includes(guest))).toHaveLength(2);
  });

  it('over GraphQL: createCaseMessage, caseMessages and caseMessage', async () => {
    const c = await caseWith({ customerEmail: `${uniqueId('gql')}@example.com` });
    const created = await server.graphql(
      'mutation($b: ID!, $c: ID!, $input: CreateCaseMessageInput!) { createCaseMessage(business: $b, case: $c, input: $input) { id object case direction channel status author } }',
      { b: r.tenant.businessId, c: c.id, input: { body: 'Hello from GraphQL' } },
      r.tenant.headers,
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createCaseMessage.id;
    expect(created.body.data.createCaseMessage).toEqual({
      id,
      object: 'casemessage',
      case: c.id,
      direction: 'out',
      channel: 'email',
      status: 'queued',
      author: r.tenant.userId,
    });
    const read = await server.graphql(
      'query($b: ID!, $c: ID!, $id: ID!) { caseMessages(business: $b, case: $c) { total data { id body } } caseMessage(business: $b, case: $c, id: $id) { id business { id } } }',
      { b: r.tenant.businessId, c: c.id, id },
      r.tenant.headers,
    );
    expect(read.body.data).toEqual({
      caseMessages: { total: 1, data: [{ id, body: 'Hello from GraphQL' }] },
      caseMessage: { id, business: { id: r.tenant.businessId } },
    });
  });

  it("by SMS when the guest left only a phone number; the guest's SMS back joins the thread, and STOP opts out", async () => {
    const phone = '+923001110002';
    const c = await caseWith({ customerPhoneNumber: phone });
    const sent = await reply(c.id, { body: 'Sorry! Call us on 042 111 222.' });
    expect(sent.body.data).toMatchObject({ channel: 'sms', status: 'queued' });
    const got = await sms.waitFor((q) => q.body.includes(phone), 30_000);
    // The thread's reply code ends every SMS of the case (docs/cases.md, "The guest's SMS back").
    expect(JSON.parse(got.body)).toEqual({
      to: phone,
      body: expect.stringMatching(/^Sorry! Call us on 042 111 222\.\n\(Ref #[A-HJKMNP-TW-Z2-9]{4}: keep it in your reply\)$/),
    });
    await statusOf(c.id, sent.body.data.id, 'sent');

    const inbound = (from: string, body: string) =>
      fetch(`${server.url}/webhooks/sms/inbound`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INBOUND_SECRET}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `From=${encodeURIComponent(from)}&Body=${encodeURIComponent(body)}`,
      });
    expect((await inbound(phone, 'Thank you, I will come on Friday')).status).toBe(200);
    // Another number texts nothing into this thread.
    expect((await inbound('+923001119999', 'who is this?')).status).toBe(200);
    const thread = (await messages(c.id)).body.data;
    expect(thread).toEqual([
      expect.objectContaining({ id: sent.body.data.id, direction: 'out' }),
      {
        id: expect.stringMatching(/^msg_/),
        object: 'casemessage',
        business: r.tenant.businessId,
        case: c.id,
        direction: 'in',
        channel: 'sms',
        body: 'Thank you, I will come on Friday',
        status: 'sent',
        author: null,
        error: null,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    ]);

    const stop = await inbound(phone, 'STOP');
    expect(await stop.json()).toEqual({ object: 'smsinbound', data: { stop: true, businesses: 1, held: false } });
    const refused = await reply(c.id, { body: 'One more thing' });
    expectError(refused, 409, 'conflict');
    expect(refused.body.error.message).toBe('The guest has opted out of SMS from this business: the reply was not sent');
    expect((await messages(c.id)).body.data.map((m: { body: string }) => m.body)).toEqual([
      'Sorry! Call us on 042 111 222.',
      'Thank you, I will come on Friday',
      'STOP',
    ]);
  });

  it('a guest on the opt-out list is refused with 409 and nothing is stored or sent', async () => {
    const guest = `${uniqueId('optout')}@example.com`;
    const c = await caseWith({ customerEmail: guest });
    expect((await r.call('POST', '/feedback-suppressions', { email: guest })).status).toBe(200);
    const refused = await reply(c.id, { body: 'Sorry' });
    expectError(refused, 409, 'conflict');
    expect(refused.body.error.message).toBe('The guest has opted out of e-mail from this business: the reply was not sent');
    expect((await messages(c.id)).body.data).toEqual([]);
    expect((await r.call('GET', `/cases/${c.id}`)).body.data).toMatchObject({ status: 'open', firstReplyAt: null });
    expect(await rows(server, 'select count(*)::int as n from case_message where case_id = ?', [c.id])).toEqual([{ n: 0 }]);
    await sleep(1_000);
    expect(mail.mails.filter((m) => m.to.includes(guest))).toHaveLength(0);
  });

  it('bad input is a 400 naming the field; no address for the channel a 409 saying so', async () => {
    const emailOnly = await caseWith({ customerEmail: `${uniqueId('e')}@example.com` });
    const nobody = await caseWith(null);
    expectError(await reply(emailOnly.id, {}), 400);
    expectError(await reply(emailOnly.id, { body: '   ' }), 400, 'validation_failed');
    expectError(await reply(emailOnly.id, { body: 'x'.repeat(5_001) }), 400, 'validation_failed');
    const fax = await reply(emailOnly.id, { body: 'Hi', channel: 'fax' });
    expectError(fax, 400, 'validation_failed');
    expect(fax.body.error.details).toEqual([{ field: 'channel', message: 'must be one of email, sms' }]);
    const noPhone = await reply(emailOnly.id, { body: 'Hi', channel: 'sms' });
    expectError(noPhone, 409, 'conflict');
    expect(noPhone.body.error.message).toContain('the guest left no phone number');
    const none = await reply(nobody.id, { body: 'Hi' });
    expectError(none, 409, 'conflict');
    expect(none.body.error.message).toContain('no e-mail address and no phone number');
    expectError(await reply('case_nope', { body: 'Hi' }), 404, 'not_found');
    expectError(await r.call('GET', `/cases/${emailOnly.id}/messages/msg_nope`), 404, 'not_found');
    expect(await rows(server, 'select count(*)::int as n from case_message where case_id in (?, ?)', [emailOnly.id, nobody.id])).toEqual([{ n: 0 }]);
  });

  it("another business's case is not found; cases:read lists, cases:write replies", async () => {
    const c = await caseWith({ customerEmail: `${uniqueId('iso')}@example.com` });
    const sent = (await reply(c.id, { body: 'Hi' })).body.data;
    const other = await createTenant(server);
    const theirs = `/v2/businesses/${other.businessId}/cases/${c.id}/messages`;
    expectError(await rest(server, 'GET', theirs, { tenant: other }), 404, 'not_found');
    expectError(await rest(server, 'GET', `${theirs}/${sent.id}`, { tenant: other }), 404, 'not_found');
    expectError(await rest(server, 'POST', theirs, { tenant: other, body: { body: 'Hi' } }), 404, 'not_found');
    // Their token on our business's path: forbidden.
    expectError(await rest(server, 'GET', `${r.b}/cases/${c.id}/messages`, { tenant: other }), 403, 'forbidden');

    // Tokens of the same business and user, narrowed.
    const readOnly = await narrowed(['cases:read']);
    const noCases = await narrowed(['alerts:read', 'alerts:write', 'cases:write']);
    const ours = `${r.b}/cases/${c.id}/messages`;
    expect((await rest(server, 'GET', ours, { headers: readOnly })).status).toBe(200);
    expect((await rest(server, 'GET', `${ours}/${sent.id}`, { headers: readOnly })).status).toBe(200);
    expectError(await rest(server, 'POST', ours, { headers: readOnly, body: { body: 'Hi' } }), 403, 'forbidden');
    expectError(await rest(server, 'GET', ours, { headers: noCases }), 403, 'forbidden');
    expect((await rest(server, 'GET', `${r.b}/cases/${c.id}/messages`, { tenant: r.tenant })).body.data).toHaveLength(1);
    expect(await rows(server, 'select count(*)::int as n from case_message where case_id = ?', [c.id])).toEqual([{ n: 1 }]);
  });
});

/** An access token of the restaurant's own user and credential with only `scopes`. */
async function narrowed(scopes: Scope[]) {
  const [credential] = await rows(server, 'select id, client_id from credential where business_id = ?', [r.tenant.businessId]);
  const issued = await issueToken(server, {
    credential: credential.id,
    clientId: credential.client_id,
    business: r.tenant.businessId,
    user: r.tenant.userId,
    scopes,
    withRefreshToken: false,
  });
  return { authorization: `Bearer ${issued.accessToken}` };
}
