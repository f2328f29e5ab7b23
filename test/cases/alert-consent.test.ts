import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import type { TestServer } from '../helpers/server.js';
import type { MailBox, ReceivedMail } from '../helpers/smtp.js';
import type { Receiver, ReceivedRequest } from '../helpers/receiver.js';
import { decodeWords } from '../helpers/mime.js';
import { ATTACKER, RIGHTFUL, requestFrom } from '../helpers/from-address.js';
import { expectError } from '../rest/rest.helpers.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { consentLink, restaurant, sleep, type Restaurant, useMessagingServer } from './case.fixtures.js';

/**
 * Issue 48 item 1 over real HTTP, real SMTP and a real SMS gateway on 127.0.0.1: an alert reaches members of the
 * business (by member or by role, at their account's e-mail) and outside addresses and numbers that confirmed. An
 * outside recipient is sent one confirmation, and nothing else until it agrees; one who declined is never messaged
 * by that business again. The stranger works from 127.0.0.2, the recipient answers from 127.0.0.3.
 */
jest.setTimeout(120_000);

const INBOUND_SECRET = 'inbound-secret-0123456789';
let server: TestServer;
let mail: MailBox;
let sms: Receiver;

useMessagingServer({ MAIL_FROM: 'Guest alerts <alerts@example.com>', SMS_INBOUND_SECRET: INBOUND_SECRET }, (started) => ({ server, mail, sms } = started));

const mailsTo = (address: string) => mail.mails.filter((m) => m.to.includes(address));
const textsTo = (phone: string) => sms.requests.filter((q) => JSON.parse(q.body).to === phone);
const textOf = (q: ReceivedRequest) => JSON.parse(q.body).body as string;
const bodyOf = (m: ReceivedMail) => m.body.replace(/\r\n/g, '\n');
const subjectOf = (m: ReceivedMail) => decodeWords(m.subject);
const newEmail = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;
const newPhone = () => `+92300${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

/** A REST call of the business's owner from `from` (the stranger's own machine). */
async function ownerCall(r: Restaurant, from: string, method: string, path: string, body?: unknown) {
  const answer = await requestFrom(from, `${server.url}${r.b}${path}`, {
    method,
    headers: { ...r.tenant.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: answer.status, body: answer.body };
}

/** The recipient's browser at a link of a message (PUBLIC_URL is this server), from 127.0.0.3: the page (GET) or a button (POST). */
const visit = (link: string, method: 'GET' | 'POST' = 'GET', headers: Record<string, string> = {}, body?: string) =>
  requestFrom(RIGHTFUL, link.replace(server.config.publicUrl, server.url), { method, headers, body });

const RECIPIENT_FIELDS = 'channel to role member status confirmedAt askedAt';
const RULE_QUERY = `query($b: ID!, $id: ID!) { alertRule(business: $b, id: $id) { notify { ${RECIPIENT_FIELDS} } } }`;

describe("the stranger's probe", () => {
  it('an alert rule naming a phone and an address that never agreed sends each one confirmation, then nothing until they confirm; then alerts flow', async () => {
    const r = await restaurant(server, 'Totally Legit Grill');
    const victim = { email: newEmail('victim'), phone: newPhone() };
    const made = await ownerCall(r, ATTACKER, 'POST', '/alert-rules', {
      name: 'Everything',
      when: { maxRating: 10 },
      notify: [
        { channel: 'sms', to: victim.phone },
        { channel: 'email', to: victim.email },
      ],
    });
    expect(made.status).toBe(201);
    const rule = made.body.data.id as string;
    for (const i of [1, 2, 3]) await r.answer({ taste: 2, text: `Private complaint number ${i}`, location: r.location });

    // One confirmation each, naming the business and carrying the link; never the guest's words.
    const confirmation = await mail.waitFor((m) => m.to.includes(victim.email), 30_000);
    const text = await sms.waitFor((q) => JSON.parse(q.body).to === victim.phone, 30_000);
    await sleep(3_000); // the three alerts of today's main are out well before this
    expect(mailsTo(victim.email)).toHaveLength(1);
    expect(textsTo(victim.phone)).toHaveLength(1);
    expect(subjectOf(confirmation)).toBe('"Totally Legit Grill" asks to send you alerts about its guests\' feedback');
    expect(bodyOf(confirmation)).toContain('Totally Legit Grill');
    expect(bodyOf(confirmation)).not.toContain('Private complaint');
    expect(textOf(text)).toContain('Totally Legit Grill');
    expect(textOf(text)).not.toContain('Private complaint');
    const mailLink = consentLink(server, bodyOf(confirmation));
    const smsLink = consentLink(server, textOf(text));
    expect(mailLink).not.toBe(smsLink);
    expect(await rows(server, 'select count(*)::int as n from case_alert where business_id = ?', [r.tenant.businessId])).toEqual([{ n: 0 }]);

    // Listed as unconfirmed, over REST and GraphQL alike.
    const pending = [
      { channel: 'sms', to: victim.phone, role: null, member: null, status: 'pending', confirmedAt: null, askedAt: expect.any(Number) },
      { channel: 'email', to: victim.email, role: null, member: null, status: 'pending', confirmedAt: null, askedAt: expect.any(Number) },
    ];
    expect((await ownerCall(r, ATTACKER, 'GET', `/alert-rules/${rule}`)).body.data.notify).toEqual(pending);
    expect((await server.graphql(RULE_QUERY, { b: r.tenant.businessId, id: rule }, r.tenant.headers)).body.data.alertRule.notify).toEqual(pending);

    // Saving the rule again, or naming them in another rule, asks nobody twice.
    expect(
      (
        await ownerCall(r, ATTACKER, 'PATCH', `/alert-rules/${rule}`, {
          notify: [
            { channel: 'email', to: victim.email.toUpperCase() },
            { channel: 'sms', to: victim.phone },
          ],
        })
      ).status,
    ).toBe(200);
    expect(
      (await ownerCall(r, ATTACKER, 'POST', '/alert-rules', { name: 'Again', when: { maxNps: 5 }, notify: [{ channel: 'email', to: victim.email }] })).status,
    ).toBe(201);
    await sleep(1_500);
    expect(mailsTo(victim.email)).toHaveLength(1);

    // The page names the business and asks; only the button (a POST) confirms. Both pages are HTML for a person.
    const page = await visit(mailLink);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Totally Legit Grill');
    expect(page.text).toMatch(/<form method="post" action="[^"]+\/confirm"/);
    expect((await ownerCall(r, ATTACKER, 'GET', `/alert-rules/${rule}`)).body.data.notify[1].status).toBe('pending');
    const confirmed = await visit(`${mailLink}/confirm`, 'POST');
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers['content-type']).toMatch(/^text\/html/);
    expect((await visit(`${smsLink}/confirm`, 'POST')).status).toBe(200);
    const listed = (await ownerCall(r, ATTACKER, 'GET', `/alert-rules/${rule}`)).body.data.notify;
    expect(listed).toEqual([
      { channel: 'email', to: victim.email, role: null, member: null, status: 'confirmed', confirmedAt: expect.any(Number), askedAt: expect.any(Number) },
      { channel: 'sms', to: victim.phone, role: null, member: null, status: 'confirmed', confirmedAt: expect.any(Number), askedAt: expect.any(Number) },
    ]);

    // Now alerts flow, each with a way to stop them.
    await r.answer({ taste: 1, text: 'The fourth complaint', location: r.location });
    const alert = await mail.waitFor((m) => m.to.includes(victim.email) && m.body.includes('The fourth complaint'), 30_000);
    const alertText = await sms.waitFor((q) => JSON.parse(q.body).to === victim.phone && textOf(q).includes('The fourth complaint'), 30_000);
    expect(subjectOf(alert)).toContain('Totally Legit Grill');
    expect(bodyOf(alert)).toContain(mailLink);
    expect(alert.headers['list-unsubscribe']).toBe(`<${mailLink}/decline>`);
    expect(textOf(alertText)).toContain(smsLink);
    // The earlier answers stay unsent: consent is not retroactive.
    await sleep(1_000);
    expect(mailsTo(victim.email)).toHaveLength(2);
    expect(textsTo(victim.phone)).toHaveLength(2);
  });
});

describe('members', () => {
  it("named by member or by role get alerts at their account e-mail without any confirmation; another business's member is a 400", async () => {
    const r = await restaurant(server, 'Members Diner');
    const staff = await r.member('staff');
    const manager = await r.member('manager');
    const made = await r.call('POST', '/alert-rules', { name: 'Team', when: { maxRating: 3 }, notify: [{ member: staff.id }, { role: 'manager' }] });
    expect(made.status).toBe(201);
    expect(made.body.data.notify).toEqual([
      { channel: null, to: null, role: null, member: staff.id, status: 'member', confirmedAt: null, askedAt: null },
      { channel: null, to: null, role: 'manager', member: null, status: 'member', confirmedAt: null, askedAt: null },
    ]);
    const opened = await r.caseOf(await r.answer({ taste: 1, text: 'Rude waiter', location: r.location }));
    const [toStaff, toManager] = await Promise.all(
      [staff.email, manager.email].map((to) => mail.waitFor((m) => m.to.includes(to) && m.body.includes(opened.id), 30_000)),
    );
    for (const m of [toStaff, toManager]) {
      expect(subjectOf(m)).toContain('Members Diner');
      expect(bodyOf(m)).toContain('"Rude waiter"');
    }
    await sleep(1_000);
    expect(mailsTo(staff.email)).toHaveLength(1);
    expect(mailsTo(manager.email)).toHaveLength(1);

    const other = await restaurant(server, 'Elsewhere');
    const theirs = await other.member('staff');
    const refused = await r.call('POST', '/alert-rules', {
      name: 'Bad',
      when: { maxRating: 3 },
      notify: [{ member: theirs.id }, { member: 'mem_nonsense' }, { member: staff.id, role: 'owner' }],
    });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details).toEqual([
      { field: 'notify[0].member', message: `'${theirs.id}' is not a member of this business` },
      { field: 'notify[1].member', message: "'mem_nonsense' is not a member of this business" },
      { field: 'notify[2]', message: 'give one of member, role, or channel and to' },
    ]);
    expect((await r.call('GET', '/alert-rules')).body.total).toBe(1);

    // A member who leaves is told nothing more, and the rule says so.
    expect((await r.call('DELETE', `/members/${staff.id}`)).status).toBe(204);
    expect((await r.call('GET', `/alert-rules/${made.body.data.id}`)).body.data.notify[0]).toMatchObject({ member: staff.id, status: 'removed' });
    const later = await r.caseOf(await r.answer({ taste: 1, text: 'Still rude', location: r.location }));
    await mail.waitFor((m) => m.to.includes(manager.email) && m.body.includes(later.id), 30_000);
    await sleep(1_000);
    expect(mailsTo(staff.email)).toHaveLength(1);
  });
});

describe('a recipient who declines', () => {
  it('is never messaged by that business again: no alert, and no second confirmation when added again; a confirmed one can stop from any alert', async () => {
    const r = await restaurant(server, 'Decline Cafe');
    const declining = newEmail('declining');
    const stopping = newEmail('stopping');
    const rule = await r.made('/alert-rules', {
      name: 'Low',
      when: { maxRating: 3 },
      notify: [{ role: 'owner' }, { channel: 'email', to: declining }, { channel: 'email', to: stopping }],
    });
    const [declineLink, stopLink] = await Promise.all(
      [declining, stopping].map(async (to) => consentLink(server, bodyOf(await mail.waitFor((m) => m.to.includes(to), 30_000)))),
    );

    const page = await visit(declineLink);
    expect(page.text).toMatch(/<form method="post" action="[^"]+\/decline"/);
    const declined = await visit(`${declineLink}/decline`, 'POST');
    expect(declined.status).toBe(200);
    expect(declined.headers['content-type']).toMatch(/^text\/html/);
    expect(declined.text).toContain('Decline Cafe');
    expect((await visit(`${stopLink}/confirm`, 'POST')).status).toBe(200);

    const first = await r.caseOf(await r.answer({ taste: 1, text: 'Cold tea' }));
    const alert = await mail.waitFor((m) => m.to.includes(stopping) && m.body.includes(first.id), 30_000);
    await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(first.id), 30_000);
    // RFC 8058's one-click, as a mail client posts it: the alert's own stop link.
    const unsubscribe = /^<(.+)>$/.exec(alert.headers['list-unsubscribe'])![1];
    expect(alert.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const stopped = await visit(unsubscribe, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, 'List-Unsubscribe=One-Click');
    expect(stopped.status).toBe(200);
    expect(stopped.headers['content-type']).toMatch(/^text\/html/);

    // Added again (another rule, the same rule saved again): no confirmation, no alert.
    await r.made('/alert-rules', {
      name: 'Again',
      when: { maxNps: 5 },
      notify: [
        { channel: 'email', to: declining },
        { channel: 'email', to: stopping },
      ],
    });
    expect(
      (await r.call('PATCH', `/alert-rules/${rule}`, { notify: [{ role: 'owner' }, { channel: 'email', to: declining }, { channel: 'email', to: stopping }] }))
        .status,
    ).toBe(200);
    const listed = (await r.call('GET', `/alert-rules/${rule}`)).body.data.notify;
    expect(listed.map((n: { status: string }) => n.status)).toEqual(['member', 'declined', 'declined']);
    const second = await r.caseOf(await r.answer({ taste: 1, nps: 0, text: 'Cold again' }));
    await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(second.id), 30_000);
    await sleep(2_000);
    expect(mailsTo(declining)).toHaveLength(1);
    expect(mailsTo(stopping)).toHaveLength(2);
    expect(
      await rows(server, 'select address from case_alert where business_id = ? and address in (?, ?)', [r.tenant.businessId, declining, stopping]),
    ).toEqual([{ address: stopping }]);

    // Another business is another question: the address is asked once by it.
    const other = await restaurant(server, 'Other Cafe');
    await other.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ channel: 'email', to: declining }] });
    await mail.waitFor((m) => m.to.includes(declining) && subjectOf(m).includes('Other Cafe'), 30_000);
  });

  it('a number that answers an alert with STOP is declined too, as its link would', async () => {
    const r = await restaurant(server, 'Stop Cafe');
    const phone = newPhone();
    const rule = await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }, { channel: 'sms', to: phone }] });
    const link = consentLink(server, textOf(await sms.waitFor((q) => JSON.parse(q.body).to === phone, 30_000)));
    expect((await visit(`${link}/confirm`, 'POST')).status).toBe(200);
    const first = await r.caseOf(await r.answer({ taste: 1, text: 'Cold' }));
    await sms.waitFor((q) => JSON.parse(q.body).to === phone && textOf(q).includes(first.id), 30_000);

    const stop = await requestFrom(RIGHTFUL, `${server.url}/webhooks/sms/inbound`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INBOUND_SECRET}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `From=${encodeURIComponent(phone)}&Body=STOP`,
    });
    expect(stop.status).toBe(200);
    expect(stop.body.data).toMatchObject({ stop: true, businesses: 1 });
    expect((await r.call('GET', `/alert-rules/${rule}`)).body.data.notify[1]).toMatchObject({ to: phone, status: 'declined', confirmedAt: null });
    const second = await r.caseOf(await r.answer({ taste: 1, text: 'Cold again' }));
    await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(second.id), 30_000);
    await sleep(1_500);
    expect(textsTo(phone)).toHaveLength(2); // the confirmation, the first alert
  });

  it('an address that opted out of the business (an unsubscribe, a STOP) is declined when a rule names it, never asked', async () => {
    const r = await restaurant(server, 'Opted Cafe');
    const to = newEmail('opted');
    expect((await r.call('POST', '/feedback-suppressions', { email: to })).status).toBe(200);
    const rule = await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }, { channel: 'email', to }] });
    const status = async () => (await r.call('GET', `/alert-rules/${rule}`)).body.data.notify[1].status;
    for (let i = 0; i < 100 && (await status()) === 'pending'; i++) await sleep(100);
    expect(await status()).toBe('declined');
    const opened = await r.caseOf(await r.answer({ taste: 1, text: 'Cold' }));
    await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(opened.id), 30_000);
    expect(mailsTo(to)).toHaveLength(0);
  });

  it('an alert due again after its recipient declined (a retry, a lease run out) is not sent', async () => {
    const r = await restaurant(server, 'Race Cafe');
    const to = newEmail('race');
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ channel: 'email', to }] });
    const link = consentLink(server, bodyOf(await mail.waitFor((m) => m.to.includes(to), 30_000)));
    expect((await visit(`${link}/confirm`, 'POST')).status).toBe(200);
    const opened = await r.caseOf(await r.answer({ taste: 1, text: 'Slow' }));
    await mail.waitFor((m) => m.to.includes(to) && m.body.includes(opened.id), 30_000);
    expect((await visit(`${link}/decline`, 'POST')).status).toBe(200);
    // Due again, as a retry or a second worker would find it, and the workers told.
    await rows(server, "update case_alert set status = 'pending', attempts = 0, due_at = now() where case_id = ?", [opened.id]);
    await rows(server, "select pg_notify('case_work', '')");
    for (let i = 0; i < 100 && (await rows(server, 'select status from case_alert where case_id = ?', [opened.id]))[0].status === 'pending'; i++)
      await sleep(100);
    expect(await rows(server, 'select status from case_alert where case_id = ?', [opened.id])).toEqual([{ status: 'skipped' }]);
    expect(mailsTo(to).filter((m) => m.body.includes(opened.id))).toHaveLength(1);
  });
});

describe("a confirmation past the business's budget", () => {
  it('waits for the budget to reset, held and not lost, like any automated message', async () => {
    const r = await restaurant(server, 'Budget Cafe');
    const now = new Date();
    // The day's SMS spent (a new business's 50), as 50 alerts would have.
    for (let i = 0; i < 50; i++)
      expect(
        (await server.services.sending.reserve(server.orm.em.fork(), { business: r.tenant.businessId, channel: 'sms', kind: 'alert' }, now)).reserved,
      ).toBe(true);
    const phone = newPhone();
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ channel: 'sms', to: phone }] });
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const held = async () =>
      (
        await rows(server, 'select (extract(epoch from due_at) * 1000)::bigint::text as due, sent_at from alert_recipient where business_id = ?', [
          r.tenant.businessId,
        ])
      )[0];
    for (let i = 0; i < 100 && Number((await held()).due) !== midnight; i++) await sleep(100);
    expect(await held()).toEqual({ due: String(midnight), sent_at: null });
    expect(textsTo(phone)).toHaveLength(0);
  });
});

describe('the confirmation page', () => {
  it('answers an unknown or malformed link with an HTML page, GET and POST alike, whatever the body', async () => {
    for (const [method, path, headers, body] of [
      ['GET', '/alerts/nope', {}, undefined],
      ['GET', `/alerts/${'x'.repeat(30)}`, {}, undefined],
      ['POST', `/alerts/${'x'.repeat(30)}/confirm`, {}, undefined],
      ['POST', `/alerts/${'x'.repeat(30)}/decline`, { 'content-type': 'application/json' }, '{"a":'],
      ['POST', `/alerts/${'x'.repeat(30)}/decline`, { 'content-type': 'text/plain' }, 'hello'],
    ] as const) {
      const answer = await visit(`${server.url}${path}`, method, headers, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.text).toContain('<h1');
    }
  });
});

describe('the recovery loop', () => {
  it.each([['a member'], ['a confirmed outside address']])(
    'works end to end with %s as the alert recipient: an order, a low rating, the alert, the reply, the guest back',
    async (kind) => {
      const r = await restaurant(server, 'Loop Kitchen');
      const secret = (await r.call('PUT', '/integrations/custom')).body.data.secret as string;
      const recipient = kind === 'a member' ? await r.member('manager') : { email: newEmail('outside'), id: null };
      await r.made('/alert-rules', {
        name: 'Low',
        when: { maxRating: 3 },
        notify: [recipient.id ? { member: recipient.id } : { channel: 'email', to: recipient.email }],
      });
      if (!recipient.id) {
        const link = consentLink(server, bodyOf(await mail.waitFor((m) => m.to.includes(recipient.email), 30_000)));
        expect((await visit(`${link}/confirm`, 'POST')).status).toBe(200);
      }
      const guest = newEmail('guest');
      const order = async () => {
        const answer = await postWebhook(
          server,
          r.tenant.businessId,
          { externalOrderId: uniqueId(), total: '1800', currency: 'PKR', metadata: { source: 'till' }, customerEmail: guest },
          { secret },
        );
        if (answer.status !== 200) throw new Error(`webhook: ${answer.status} ${JSON.stringify(answer.body)}`);
        return answer.body.data.id as string;
      };
      const first = await order();
      const opened = await r.caseOf(await r.answer({ taste: 2, text: 'The karahi was cold', order: first }));
      const alert = await mail.waitFor((m) => m.to.includes(recipient.email) && m.body.includes(opened.id), 30_000);
      expect(bodyOf(alert)).toContain(`${server.config.publicUrl}/portal/cases/${opened.id}`);
      expect(bodyOf(alert)).toContain('"The karahi was cold"');

      expect((await r.call('POST', `/cases/${opened.id}/messages`, { body: 'We are sorry. Your next karahi is on us.' })).status).toBe(201);
      const reply = await mail.waitFor((m) => m.to.includes(guest), 30_000);
      expect(bodyOf(reply)).toContain('Your next karahi is on us.');
      expect((await r.call('GET', `/cases/${opened.id}`)).body.data.status).toBe('replied');

      const back = await order();
      expect((await r.call('GET', `/cases/${opened.id}`)).body.data).toMatchObject({ status: 'recovered', recoveredBy: { order: back, offer: null } });
    },
  );
});
