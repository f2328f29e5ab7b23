import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { startMailBox, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import { createTenant, TEST_PASSWORD } from '../helpers/auth.js';
import { GuestAgent, guestSurvey, h1, type GuestSurveyFixture } from '../helpers/guest.js';
import { ATTACKER, RIGHTFUL, requestFrom, type AddressedAnswer } from '../helpers/from-address.js';
import { rest } from '../rest/rest.helpers.js';
import { rows } from '../ingest/ingest-helpers.js';
import { hiddenField } from '../oauth/oauth-helpers.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { until } from '../helpers/until.js';

/**
 * Issue 48, item 5, over real HTTP with a real SMTP server: whoever asks and from wherever, at most 3 reset,
 * confirmation and invitation e-mails reach one inbox an hour (case, `+tags` and Gmail's dots are one inbox), and the
 * asker's page never says whether one was sent; a business sends at most INVITATIONS_PER_DAY invitations a day; an
 * IPv6 client counts as its /64 in every per-address limit; an attacker's address is refused while the rightful
 * party's, elsewhere, is served.
 */
jest.setTimeout(120_000);

let server: TestServer;
let mail: MailBox;
beforeAll(async () => {
  mail = await startMailBox();
  server = await startTestServer({ workers: true, env: { SMTP_URL: mail.url, INVITATIONS_PER_DAY: '6' } });
});
afterAll(async () => {
  await server?.stop();
  await mail?.close();
});

const cookiesOf = (answer: AddressedAnswer) => (answer.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');

/** An account page as a browser at `address` opens it (its CSRF cookie and field): `post` sends its form. */
async function formFrom(address: string, path: string) {
  const page = await requestFrom(address, `${server.url}${path}`);
  const csrf = hiddenField(page.text, 'csrf');
  return {
    post: (fields: Record<string, string>) =>
      requestFrom(address, `${server.url}${path.replace(/\?.*$/, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(page) },
        body: new URLSearchParams({ csrf, ...fields }).toString(),
      }),
  };
}

const postFormFrom = async (address: string, path: string, fields: Record<string, string>) => (await formFrom(address, path)).post(fields);

/** The sign-ups' client: apart from ATTACKER, whose per-address count the last test of the block spends alone. */
const SIGNUPS = '127.0.0.30';
const forgotFrom = (address: string, email: string) => postFormFrom(address, '/oauth/password/forgot', { email });
const loopback = (i: number) => `127.0.0.${10 + i}`;
const mailsTo = (email: string) => mail.mails.filter((m) => m.to.some((to) => to.toLowerCase() === email.toLowerCase()));
const linkIn = (m: ReceivedMail) => /(http\S+token=\S+)/.exec(m.body)![1].replace(/[.)]$/, '').replace(server.config.publicUrl, server.url);

/** Every account e-mail queued for these addresses has gone out (none pending): what reached them is all that will. */
const settled = (emails: string[]) =>
  until(
    () => rows(server, `select count(*)::int as n from account_mail where email in (?) and status = 'pending'`, [emails.map((e) => e.toLowerCase())]),
    (r) => r[0].n === 0,
  );

describe('one inbox, many askers', () => {
  it('"Forgot your password?" for one address from 12 client addresses, 3 times each: 3 e-mails reach it, every answer the same, and a link works for its owner', async () => {
    const email = `ana.victim.${randomBytes(3).toString('hex')}@gmail.com`;
    await createUser(server.orm.em.fork(), { email, password: TEST_PASSWORD, name: 'Ana' });
    // The 36 pages opened, then their forms sent at once: the same address written three ways from each client (the
    // account's address is one, whatever its case).
    const forms = await Promise.all(Array.from({ length: 36 }, (_, i) => formFrom(loopback(i % 12), '/oauth/password/forgot')));
    const answers = await Promise.all(forms.map((form, i) => form.post({ email: [email, email.toUpperCase(), ` ${email} `][Math.floor(i / 12)] })));
    expect(answers).toHaveLength(36);
    // Every asker is answered alike (a throttled address is told to wait: that says nothing of the account either).
    for (const a of answers) {
      if (a.status === 429) continue;
      expect(a.status).toBe(200);
      expect(a.text).toContain(`If ${email} has an account, we have sent it a link to choose a new password.`);
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(12);

    await until(
      () => mailsTo(email).length,
      (n) => n >= 3,
    );
    await settled([email]);
    expect(mailsTo(email)).toHaveLength(3);
    expect((await rows(server, `select count(*)::int as n from account_mail where email = ?`, [email]))[0].n).toBe(3);

    // The owner, from elsewhere, uses one of the links it got: the reset goes through.
    const link = new URL(linkIn(mailsTo(email)[2]));
    const reset = await postFormFrom(RIGHTFUL, `${link.pathname}${link.search}`, {
      token: link.searchParams.get('token')!,
      password: 'a brand new passphrase 7',
    });
    expect(reset.status).toBe(200);
    expect(h1(reset.text)).toBe('Password changed');
  });

  it('sign-ups with +tag, dot and case variants of one Gmail address: 3 confirmations reach the inbox, every page the same', async () => {
    const local = `bilal${randomBytes(3).toString('hex')}`;
    const variants = Array.from({ length: 10 }, (_, i) => `${local.slice(0, 2)}.${local.slice(2)}+shop${i}@${i % 2 ? 'GMail.com' : 'googlemail.com'}`);
    const pages = [];
    for (const email of variants) {
      pages.push(
        await postFormFrom(SIGNUPS, '/oauth/signup', {
          name: 'Not Bilal',
          email,
          password: 'a long enough passphrase 9',
          businessName: 'Spam Cafe',
          timeZone: 'UTC',
        }),
      );
    }
    for (const [i, page] of pages.entries()) {
      expect(page.status).toBe(200);
      expect(page.text).toContain(`We have sent a message to ${variants[i].toLowerCase()}.`);
    }
    await until(
      () => mail.mails.filter((m) => m.to.some((to) => to.toLowerCase().includes(`+shop`) && to.toLowerCase().startsWith(local.slice(0, 2)))).length,
      (n) => n >= 3,
    );
    await settled(variants);
    const reached = mail.mails.filter((m) => m.to.some((to) => variants.map((v) => v.toLowerCase()).includes(to.toLowerCase())));
    expect(reached).toHaveLength(3);
    expect(reached.every((m) => m.subject === 'Confirm your e-mail address')).toBe(true);
  });

  it("an attacker at 127.0.0.2 filling an inbox's hour with +tag sign-ups does not keep its owner, at 127.0.0.3, from a reset link", async () => {
    const owner = `owner-${randomBytes(4).toString('hex')}@example.com`;
    await createUser(server.orm.em.fork(), { email: owner, password: TEST_PASSWORD, name: 'Owner' });
    const variants = Array.from({ length: 5 }, (_, i) => owner.replace('@', `+spam${i}@`));
    for (const email of variants) {
      const page = await postFormFrom(ATTACKER, '/oauth/signup', {
        name: 'Not the owner',
        email,
        password: 'a long enough passphrase 9',
        businessName: 'Spam Cafe',
        timeZone: 'UTC',
      });
      expect(page.status).toBe(200);
    }
    await settled(variants);
    expect(mail.mails.filter((m) => m.to.some((to) => variants.includes(to)))).toHaveLength(3);

    // The hour is full, but the owner's reset of their own (verified) account goes: once an hour past the number.
    expect((await forgotFrom(RIGHTFUL, owner)).status).toBe(200);
    const got = await mail.waitFor((m) => m.to.includes(owner) && m.subject === 'Reset your password', 20_000);
    expect(linkIn(got)).toContain('/oauth/password/reset?token=');
    // A second one within the hour is not sent (the page says the same).
    const again = await forgotFrom(RIGHTFUL, owner);
    expect(again.status).toBe(200);
    expect(again.text).toContain(`If ${owner} has an account, we have sent it a link`);
    await settled([owner]);
    expect(mailsTo(owner)).toHaveLength(1);
  });

  it("an attacker's resets at 127.0.0.2, once run out, do not keep the owner at 127.0.0.3 from a working link within the hour", async () => {
    const owner = `owner-${randomBytes(4).toString('hex')}@example.com`;
    await createUser(server.orm.em.fork(), { email: owner, password: TEST_PASSWORD, name: 'Owner' });
    for (let i = 0; i < 3; i++) expect((await forgotFrom(ATTACKER, owner)).status).toBe(200);
    await until(
      () => mailsTo(owner).length,
      (n) => n === 3,
    );
    await settled([owner]);
    // Their links run out (30 minutes) while the hour still counts them.
    await rows(server, `update account_mail set expires_at = now() - interval '1 second' where email = ?`, [owner]);
    expect((await forgotFrom(RIGHTFUL, owner)).status).toBe(200);
    await until(
      () => mailsTo(owner).length,
      (n) => n === 4,
    );
    const link = new URL(linkIn(mailsTo(owner)[3]));
    const reset = await postFormFrom(RIGHTFUL, `${link.pathname}${link.search}`, {
      token: link.searchParams.get('token')!,
      password: 'a brand new passphrase 8',
    });
    expect(h1(reset.text)).toBe('Password changed');
  });

  it('an attacker at 127.0.0.2 spending its per-address limit is refused; the rightful party at 127.0.0.3 still gets its e-mail', async () => {
    const owner = `owner-${randomBytes(4).toString('hex')}@example.com`;
    await createUser(server.orm.em.fork(), { email: owner, password: TEST_PASSWORD, name: 'Owner' });
    // Until its address's 50 requests of the window are spent (the test before spent some of them).
    const statuses = [];
    for (let i = 0; i <= 50 && statuses.at(-1) !== 429; i++)
      statuses.push((await forgotFrom(ATTACKER, `stranger-${i}-${randomBytes(3).toString('hex')}@example.com`)).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    const refused = await forgotFrom(ATTACKER, owner);
    expect(refused.status).toBe(429);
    expect(h1(refused.text)).toBeDefined();

    const served = await forgotFrom(RIGHTFUL, owner);
    expect(served.status).toBe(200);
    const got = await mail.waitFor((m) => m.to.includes(owner) && m.subject === 'Reset your password', 20_000);
    expect(linkIn(got)).toContain('/oauth/password/reset?token=');
  });
});

describe('invitations', () => {
  it('created and deleted in a loop: the business is refused past its daily number (429 naming "invitations"); the invitee gets at most 3 a hour', async () => {
    const tenant = await createTenant(server, { businessName: 'Loop Cafe' });
    const b = `/v2/businesses/${tenant.businessId}`;
    const victim = `victim-${randomBytes(4).toString('hex')}@example.com`;
    const created = [];
    for (let i = 0; i < 9; i++) {
      // The same person under a new +tag each time: one inbox.
      const invited = await rest(server, 'POST', `${b}/invitations`, { tenant, body: { email: victim.replace('@', `+${i}@`), role: 'staff' } });
      created.push(invited);
      if (invited.status === 201) expect((await rest(server, 'DELETE', `${b}/invitations/${invited.body.data.id}`, { tenant })).status).toBe(204);
    }
    expect(created.map((c) => c.status)).toEqual([...Array(6).fill(201), 429, 429, 429]);
    expect(created[6].body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(
        /^Sending budget "invitations" spent: this business may send 6 invitations a day, and has sent them today\. It resets at /,
      ),
    });
    expect(Number(created[6].headers.get('retry-after'))).toBeGreaterThan(0);

    await settled(Array.from({ length: 9 }, (_, i) => victim.replace('@', `+${i}@`)));
    const reached = mail.mails.filter((m) => m.to.some((to) => to.startsWith(victim.split('@')[0])));
    expect(reached.length).toBeLessThanOrEqual(3);

    // Another business's invitation to the same person is not refused: its e-mail waits for the inbox's next slot at worst.
    const other = await createTenant(server, { businessName: 'Honest Cafe' });
    const honest = await rest(server, 'POST', `/v2/businesses/${other.businessId}/invitations`, { tenant: other, body: { email: victim, role: 'manager' } });
    expect(honest.status).toBe(201);
    const [queued] = await rows(server, `select status, due_at from account_mail where invitation_id = ?`, [honest.body.data.id]);
    expect(queued).toBeDefined();
    expect(new Date(queued.due_at ?? Date.now()).getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });
  it('to an inbox whose hour is full, the e-mail waits (not lost) and goes once the hour has room', async () => {
    const invitee = `invitee-${randomBytes(4).toString('hex')}@example.com`;
    const tags = Array.from({ length: 3 }, (_, i) => invitee.replace('@', `+${i}@`));
    for (const email of tags)
      await postFormFrom(SIGNUPS, '/oauth/signup', {
        name: 'Someone',
        email,
        password: 'a long enough passphrase 9',
        businessName: 'Some Cafe',
        timeZone: 'UTC',
      });
    await settled(tags);
    const owner = await createTenant(server, { businessName: 'Patient Cafe' });
    const invited = await rest(server, 'POST', `/v2/businesses/${owner.businessId}/invitations`, { tenant: owner, body: { email: invitee, role: 'staff' } });
    expect(invited.status).toBe(201);
    const [held] = await rows(server, `select inbox_at, due_at, status from account_mail where invitation_id = ?`, [invited.body.data.id]);
    expect(held).toMatchObject({ inbox_at: null, status: 'pending' });
    expect(new Date(held.due_at).getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    // An hour later (the stored times moved back), the worker lets it through.
    await rows(server, `update account_mail set inbox_at = inbox_at - interval '1 hour' where inbox = ? and inbox_at is not null`, [invitee]);
    await rows(server, `update account_mail set due_at = now() where invitation_id = ?`, [invited.body.data.id]);
    await rows(server, `select pg_notify('account_mail', '')`);
    const got = await mail.waitFor((m) => m.to.includes(invitee) && m.subject === 'You are invited to Patient Cafe', 20_000);
    expect(linkIn(got)).toContain('/oauth/invitation?token=');
  });
});

describe('IPv6 clients count as their /64', () => {
  let proxied: TestServer;
  useTestServer((s) => (proxied = s), { env: { TRUST_PROXY_HOPS: '1' } });

  /** One guest answering the survey's one step; the POST's page. */
  async function answerOnce(target: TestServer, f: GuestSurveyFixture, headers: Record<string, string> = {}) {
    const guest = new GuestAgent(target.url, headers);
    return (await guest.answer(await guest.get(f.path), { value: '7' })).post;
  }

  it('behind a proxy: 15 answers from 15 addresses of one /64 are one client (10 stored, then 429); another /64 is served', async () => {
    const f = await guestSurvey(proxied, { steps: [['nps', { type: 'nps' }]] });
    const posts = [];
    for (let i = 1; i <= 15; i++) posts.push(await answerOnce(proxied, f, { 'x-forwarded-for': `2001:db8:1:2::${i.toString(16)}` }));
    expect(posts.map((p) => p.status)).toEqual([...Array(10).fill(303), ...Array(5).fill(429)]);
    expect(h1(posts[10].html)).toBe('Too many responses');
    expect((await answerOnce(proxied, f, { 'x-forwarded-for': '2001:db8:1:3::1' })).status).toBe(303);
    expect((await rows(proxied, 'select count(*)::int as n from submission where survey_id = ?', [f.survey]))[0].n).toBe(11);
  });

  it('over a real IPv6 socket (::1): the client is counted by its /64 like any other', async () => {
    const v6 = await startTestServer({ host: '::1' });
    try {
      const f = await guestSurvey(v6, { steps: [['nps', { type: 'nps' }]] });
      const posts = [];
      for (let i = 0; i < 11; i++) posts.push(await answerOnce(v6, f));
      expect(posts.map((p) => p.status)).toEqual([...Array(10).fill(303), 429]);
      expect((await rows(v6, 'select count(*)::int as n from submission where survey_id = ?', [f.survey]))[0].n).toBe(10);
    } finally {
      await v6.stop();
    }
  });
});
