import { randomBytes } from 'node:crypto';
import { SCOPES } from '../../src/auth/scopes.js';
import { useMailingServer, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import type { TestServer } from '../helpers/server.js';
import { createTenant, TEST_PASSWORD, type Tenant } from '../helpers/auth.js';
import { ATTACKER, RIGHTFUL } from '../helpers/from-address.js';
import { Browser, hiddenField, pkcePair } from './oauth-helpers.js';

/**
 * Issue 48 items 3 and 6, over HTTP with the real SMTP server: nobody is made a member without accepting, adding one
 * answers the same whatever the address, and confirming an address gives nothing to whoever registered it. The
 * stranger acts from ATTACKER, the address's owner from RIGHTFUL.
 */
let server: TestServer;
let mailbox: MailBox;
useMailingServer((started) => ({ server, mail: mailbox } = started));

const STRANGERS_PASSWORD = 'strangers own phrase 31';
const OWNERS_PASSWORD = 'owners chosen phrase 77';
const newEmail = (who = 'person') => `${who}-${randomBytes(5).toString('hex')}@example.com`;
const linkIn = (mail: ReceivedMail) => /(http\S+token=\S+)/.exec(mail.body)?.[1].replace(/[.)]$/, '').replace(server.config.publicUrl, server.url);
const mailsTo = (email: string) => mailbox.mails.filter((m) => m.to.includes(email));
const nthMailTo = (email: string, n: number) => mailbox.waitFor(() => mailsTo(email).length >= n, 10_000).then(() => mailsTo(email)[n - 1]);
const sql = (text: string, params: unknown[] = []) => server.orm.em.fork().getConnection().execute(text, params);

async function page(browser: Browser, path: string) {
  const res = await browser.request(`${server.url}${path}`);
  const html = await res.text();
  return { status: res.status, html, csrf: res.status === 200 ? hiddenField(html, 'csrf') : '' };
}

/** The invitation mailed to `email`, opened in the address owner's browser: its page, and `accept` sending its form. */
async function invitationTo(email: string) {
  const link = linkIn(await mailbox.waitFor((m) => m.to.includes(email) && m.subject.includes('invited'), 10_000))!;
  const browser = new Browser(RIGHTFUL);
  const invitation = await page(browser, link.slice(server.url.length));
  const accept = (fields: Record<string, string>) =>
    browser.postForm(`${server.url}/oauth/invitation`, { csrf: invitation.csrf, token: new URL(link).searchParams.get('token')!, ...fields });
  return { html: invitation.html, accept };
}

/** The sign-up form as a stranger fills it: a password of their own too (an older form had the field). */
async function signUp(browser: Browser, email: string) {
  const form = await page(browser, '/oauth/signup');
  const res = await browser.postForm(`${server.url}/oauth/signup`, {
    csrf: form.csrf,
    name: 'Someone',
    email,
    password: STRANGERS_PASSWORD,
    businessName: 'Their Cafe',
    timeZone: 'UTC',
  });
  return { status: res.status, html: (await res.text()).replaceAll(email, 'ADDRESS').replace(/name="csrf" value="[^"]*"/g, '') };
}

const PKCE = pkcePair();

/** A sign-in on the portal's authorization page: 303 when it lets the person in. */
async function signIn(from: string, email: string, password: string) {
  const browser = new Browser(from);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'portal',
    redirect_uri: `${server.config.publicUrl}/portal/callback`,
    scope: SCOPES.join(' '),
    state: 's',
    code_challenge: PKCE.challenge,
    code_challenge_method: 'S256',
  });
  const url = `${server.url}/oauth/authorize?${query}`;
  const form = await page(browser, url.slice(server.url.length));
  const res = await browser.postForm(url, { csrf: form.csrf, action: 'signin', email, password });
  return { status: res.status, html: await res.text() };
}

/** Opens the link of a confirmation mail and confirms, choosing `password` where the page asks for one. */
async function confirm(browser: Browser, link: string, password: string) {
  const form = await page(browser, link.slice(server.url.length));
  expect(form.status).toBe(200);
  const res = await browser.postForm(`${server.url}/oauth/verify`, {
    csrf: form.csrf,
    token: new URL(link).searchParams.get('token')!,
    name: 'The Owner',
    password,
  });
  return { form, status: res.status, location: res.headers.get('location') };
}

describe('membership by consent', () => {
  const post = (tenant: Tenant, path: string, body: object) =>
    fetch(`${server.url}/v2/businesses/${tenant.businessId}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tenant.headers },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  /** An answer with what differs by address or by time masked: what is left must be the same for every address. */
  const shape = (answer: unknown, email: string) =>
    JSON.parse(
      JSON.stringify(answer)
        .replaceAll(email, 'ADDRESS')
        .replace(/"inv_[0-9A-Z]+"/g, '"ID"')
        .replace(/"(createdAt|updatedAt|expiresAt)":\d+/g, '"$1":0')
        .replace(/"requestId":"[^"]*"/g, '"requestId":""'),
    );

  it('POST …/members answers an invitation, the same for an existing account as for an unknown address; the account joins only by accepting', async () => {
    const stranger = await createTenant(server, { businessName: 'Stranger Cafe' });
    const person = await createTenant(server, { businessName: 'Their Own Cafe' });
    const unknown = newEmail();

    const existing = await post(stranger, '/members', { email: person.email, role: 'owner' });
    const fresh = await post(stranger, '/members', { email: unknown, role: 'owner' });
    expect(existing.status).toBe(201);
    expect(fresh.status).toBe(existing.status);
    expect(existing.body.object).toBe('invitation');
    expect(shape(existing.body, person.email)).toEqual(shape(fresh.body, unknown));
    expect(JSON.stringify(existing.body)).not.toContain('Test Owner');
    expect(JSON.stringify(existing.body)).not.toContain(person.userId);

    // GraphQL's addMember and createMember say the same for both addresses too.
    const other = await createTenant(server);
    const unknown2 = newEmail();
    const add = (email: string) =>
      server.graphql(
        'mutation($b: ID!, $e: String!) { addMember(business: $b, input: {email: $e, role: manager}) { __typename ... on Invitation { email role } ... on Member { name } } }',
        { b: stranger.businessId, e: email },
        stranger.headers,
      );
    const [a1, a2] = [await add(other.email), await add(unknown2)];
    expect(shape(a1.body, other.email)).toEqual(shape(a2.body, unknown2));
    expect(a1.body.data.addMember).toEqual({ __typename: 'Invitation', email: other.email, role: 'manager' });
    const create = (email: string) =>
      server.graphql(
        'mutation($b: ID!, $e: String!) { createMember(business: $b, input: {email: $e, role: staff}) { id name } }',
        { b: stranger.businessId, e: email },
        stranger.headers,
      );
    const third = await createTenant(server);
    const unknown3 = newEmail();
    const [c1, c2] = [await create(third.email), await create(unknown3)];
    expect(shape(c1.body, third.email)).toEqual(shape(c2.body, unknown3));
    expect(c1.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');

    // Nobody joined: the stranger's business has its owner only, the existing account is not in it.
    const members = await server.graphql('query($b: ID!) { members(business: $b) { data { email } } }', { b: stranger.businessId }, stranger.headers);
    expect(members.body.data.members.data).toEqual([{ email: stranger.email }]);
    expect(
      await sql(`select count(*)::int as n from membership where user_id in (?, ?, ?) and business_id = ?`, [
        person.userId,
        other.userId,
        third.userId,
        stranger.businessId,
      ]),
    ).toEqual([{ n: 0 }]);

    // The person accepts in their own browser, by the e-mailed link, signing in: now, and only now, a member.
    const invitation = await invitationTo(person.email);
    expect(invitation.html).toContain('Sign in and join');
    const accepted = await invitation.accept({ password: TEST_PASSWORD });
    expect(accepted.status).toBe(303);
    const after = await server.graphql('query($b: ID!) { members(business: $b) { data { email role } } }', { b: stranger.businessId }, stranger.headers);
    expect(after.body.data.members.data).toContainEqual({ email: person.email, role: 'owner' });
  });

  it('an account whose address is not confirmed is not made a member: its invitation is accepted by whoever holds the inbox, with a password of their own', async () => {
    const owner = await createTenant(server, { businessName: 'Inviting Cafe' });
    const victim = newEmail('victim');
    // A stranger registered the victim's address with a password of their own; the victim never confirmed.
    expect((await signUp(new Browser(ATTACKER), victim)).status).toBe(200);
    const invited = await post(owner, '/members', { email: victim, role: 'manager' });
    expect(invited.body.object).toBe('invitation');

    const invitation = await invitationTo(victim);
    // Not "sign in with the account's password" (that would be the stranger's): the holder of the inbox chooses one.
    expect(invitation.html).toContain('Create account and join');
    const accepted = await invitation.accept({ name: 'Victor', password: OWNERS_PASSWORD });
    expect(accepted.status).toBe(303);
    const members = await server.graphql('query($b: ID!) { members(business: $b) { data { email name role } } }', { b: owner.businessId }, owner.headers);
    expect(members.body.data.members.data).toContainEqual({ email: victim, name: 'Victor', role: 'manager' });
    expect((await signIn(ATTACKER, victim, STRANGERS_PASSWORD)).status).toBe(401);
    expect((await signIn(RIGHTFUL, victim, OWNERS_PASSWORD)).status).toBe(303);
  });
});

describe('confirming an address gives nothing to whoever registered it', () => {
  it("the stranger's password does not work, before or after the address's owner confirms; the owner's does", async () => {
    const victim = newEmail('victim');
    const unknown = newEmail('nobody');
    expect((await signUp(new Browser(ATTACKER), victim)).status).toBe(200);

    // Before: the stranger's password answers as for an address without an account (nothing to learn).
    const early = await signIn(ATTACKER, victim, STRANGERS_PASSWORD);
    const none = await signIn(ATTACKER, unknown, STRANGERS_PASSWORD);
    expect(early.status).toBe(401);
    const masked = (html: string, email: string) => html.replaceAll(email, 'ADDRESS').replace(/name="csrf" value="[^"]*"/g, '');
    expect(masked(early.html, victim)).toBe(masked(none.html, unknown));

    // The owner of the inbox presses the link: the page asks them to choose the password.
    const link = linkIn(await nthMailTo(victim, 1))!;
    const owner = new Browser(RIGHTFUL);
    const confirmed = await confirm(owner, link, OWNERS_PASSWORD);
    expect(confirmed.form.html).toContain('Choose a password');
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe(`${server.config.publicUrl}/portal/`);

    expect((await signIn(ATTACKER, victim, STRANGERS_PASSWORD)).status).toBe(401);
    expect((await signIn(RIGHTFUL, victim, OWNERS_PASSWORD)).status).toBe(303);
  });

  it('a second sign-up with an address mails its owner, and the page answers as for a new address', async () => {
    const known = await createTenant(server, { businessName: 'Known Cafe' });
    const pending = newEmail('pending');
    const fresh = newEmail('fresh');
    const forFresh = await signUp(new Browser(ATTACKER), fresh);
    expect(forFresh.status).toBe(200);
    expect((await signUp(new Browser(ATTACKER), pending)).status).toBe(200);
    await nthMailTo(pending, 1);

    // The stranger signs up again with an account's address, and with an address awaiting confirmation.
    const forKnown = await signUp(new Browser(ATTACKER), known.email);
    const forPending = await signUp(new Browser(ATTACKER), pending);
    expect(forKnown).toEqual(forFresh);
    expect(forPending).toEqual(forFresh);

    // The account's owner is told, with the ways in; their password still works, no second account.
    const told = await nthMailTo(known.email, 1);
    expect(told.subject).toMatch(/sign up/i);
    expect(told.body).toContain('/oauth/password/forgot');
    expect(linkIn(told)).toBeUndefined();
    expect((await signIn(RIGHTFUL, known.email, TEST_PASSWORD)).status).toBe(303);
    expect(await sql(`select count(*)::int as n from app_user where email = ?`, [known.email])).toEqual([{ n: 1 }]);

    // The inbox of the address awaiting confirmation gets a new link, with which its owner chooses the password.
    const second = await nthMailTo(pending, 2);
    const link = linkIn(second);
    expect(link).toContain('/oauth/verify?token=');
    const confirmed = await confirm(new Browser(RIGHTFUL), link!, OWNERS_PASSWORD);
    expect(confirmed.status).toBe(303);
    expect((await signIn(RIGHTFUL, pending, OWNERS_PASSWORD)).status).toBe(303);
    expect((await signIn(ATTACKER, pending, STRANGERS_PASSWORD)).status).toBe(401);
  });
});
