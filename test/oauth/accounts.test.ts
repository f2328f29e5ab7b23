import { randomBytes } from 'node:crypto';
import { SCOPES } from '../../src/auth/scopes.js';
import { useMailingServer, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import type { TestServer } from '../helpers/server.js';
import { createTenant, TEST_PASSWORD } from '../helpers/auth.js';
import { createMember } from '../../src/modules/member/member.service.js';
import { Browser, authorizeCode, exchangeFields, hiddenField, pkcePair, postJson, refreshGrant } from './oauth-helpers.js';

/** Issue 37 items 1-3, over HTTP with the real SMTP server: sign-up, password reset, invitations. */
let server: TestServer;
let mailbox: MailBox;
useMailingServer((started) => ({ server, mail: mailbox } = started));

const PASSWORD = 'tangerine orbit 42 lamp';
const newEmail = () => `person-${randomBytes(5).toString('hex')}@example.com`;
/** The link in a mail, on this test server's real address (PUBLIC_URL names port 4000). */
const linkIn = (mail: ReceivedMail) => /(http\S+token=\S+)/.exec(mail.body)![1].replace(/[.)]$/, '').replace(server.config.publicUrl, server.url);
const mailTo = (email: string, subject?: string) => mailbox.waitFor((m) => m.to.includes(email) && (!subject || m.subject.includes(subject)), 10_000);

async function form(browser: Browser, path: string) {
  const res = await browser.request(`${server.url}${path}`);
  const html = await res.text();
  return { status: res.status, html, csrf: res.status === 200 ? hiddenField(html, 'csrf') : '' };
}

async function signUp(browser: Browser, email: string, fields: Record<string, string> = {}) {
  const page = await form(browser, '/oauth/signup');
  const res = await browser.postForm(`${server.url}/oauth/signup`, {
    csrf: page.csrf,
    name: 'Ada Owner',
    email,
    businessName: 'Cafe Ada',
    timeZone: 'Europe/Rome',
    ...fields,
  });
  return { status: res.status, html: await res.text() };
}

/** The portal's flow with the browser's session: the code, then the token and the business it acts for. */
async function portalToken(browser: Browser) {
  const pkce = pkcePair();
  const redirectUri = `${server.config.publicUrl}/portal/callback`;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'portal',
    redirect_uri: redirectUri,
    scope: SCOPES.join(' '),
    state: 's',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  const res = await browser.request(`${server.url}/oauth/authorize?${query}`);
  if (res.status !== 303) return { status: res.status, html: await res.text() };
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const token = await postJson(server, '/oauth/token', { clientId: 'portal', grantType: 'authorization_code', code, redirectUri, codeVerifier: pkce.verifier });
  return { status: 303, token: token.body };
}

async function signInAttempt(email: string, password: string) {
  const tenant = await createTenant(server);
  const browser = new Browser();
  const url = `${server.url}/oauth/authorize?${new URLSearchParams({ responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`;
  const page = await (await browser.request(url)).text();
  const res = await browser.postForm(url, { csrf: hiddenField(page, 'csrf'), action: 'signin', email, password });
  return { status: res.status, html: await res.text() };
}

describe('sign-up', () => {
  it('the sign-in page links to sign-up and to the password reset', async () => {
    const tenant = await createTenant(server);
    const url = `${server.url}/oauth/authorize?${new URLSearchParams({ responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`;
    const html = await (await new Browser().request(url)).text();
    expect(html).toContain('Create an account');
    expect(html).toContain('href="/oauth/password/forgot"');
    const signup = await form(new Browser(), '/oauth/signup');
    expect(signup.html).toContain('<label for="timeZone">');
    // No password here: the owner of the address chooses it on the confirmation page.
    expect(signup.html).not.toContain('type="password"');
    expect(signup.html).not.toContain('<script');
  });

  it('sign-up → e-mail → verify → signed in to the portal as owner of the new business', async () => {
    const browser = new Browser();
    const email = newEmail();
    const done = await signUp(browser, email);
    expect(done.status).toBe(200);
    expect(done.html).toContain('Check your e-mail');

    // Not confirmed yet: no password opens the account.
    expect((await signInAttempt(email, PASSWORD)).status).toBe(401);

    // The link's page asks for the name (as typed at sign-up) and the password, under the rule; a weak one is refused.
    const link = linkIn(await mailTo(email, 'Confirm'));
    const token = new URL(link).searchParams.get('token')!;
    const confirm = await form(browser, link.slice(server.url.length));
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('value="Ada Owner"');
    expect(confirm.html).toContain('At least 10 characters');
    const weak = await browser.postForm(`${server.url}/oauth/verify`, { csrf: confirm.csrf, token, name: 'Ada Owner', password: 'password123' });
    expect(weak.status).toBe(400);
    const weakHtml = await weak.text();
    expect(weakHtml).toContain('href="#password"');
    expect(hiddenField(weakHtml, 'token')).toBe(token);
    const verified = await browser.postForm(`${server.url}/oauth/verify`, { csrf: confirm.csrf, token, name: 'Ada Lovelace', password: PASSWORD });
    expect(verified.status).toBe(303);
    expect(verified.headers.get('location')).toBe(`${server.config.publicUrl}/portal/`);

    const portal = await portalToken(browser);
    expect(portal.status).toBe(303);
    const introspect = JSON.parse(Buffer.from(portal.token.accessToken.split('.')[1], 'base64url').toString());
    const check = await server.graphql(
      'query($id: ID!) { business(id: $id) { name timeZone } members(business: $id) { data { email role } } }',
      { id: introspect.bus },
      { authorization: `Bearer ${portal.token.accessToken}` },
    );
    expect(check.body.data.business).toEqual({ name: 'Cafe Ada', timeZone: 'Europe/Rome' });
    expect(check.body.data.members.data).toEqual([{ email, role: 'owner' }]);

    expect((await signInAttempt(email, PASSWORD)).status).toBe(303);
    const named = await server.orm.em.fork().getConnection().execute(`select name from app_user where email = ?`, [email]);
    expect(named).toEqual([{ name: 'Ada Lovelace' }]);

    // The link works once.
    const again = await browser.postForm(`${server.url}/oauth/verify`, { csrf: confirm.csrf, token, name: 'Ada', password: 'yet another phrase 5' });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('used already');
  });

  it('answers a known address exactly as an unknown one; the owner is told by e-mail', async () => {
    const tenant = await createTenant(server);
    const known = await signUp(new Browser(), tenant.email);
    const fresh = newEmail();
    const unknown = await signUp(new Browser(), fresh);
    expect(known.status).toBe(unknown.status);
    const masked = (html: string, email: string) => html.replaceAll(email, 'X').replace(/name="csrf" value="[^"]*"/, '');
    expect(masked(known.html, tenant.email)).toBe(masked(unknown.html, fresh));
    const mail = await mailTo(tenant.email, 'sign up with your address');
    expect(mail.body).not.toContain('token=');
    // And no second account, no business, for the known address.
    const users = await server.orm.em.fork().getConnection().execute(`select count(*)::int as n from app_user where email = ?`, [tenant.email]);
    expect(users[0].n).toBe(1);
  });

  it('refuses a form with a field missing, and a form from elsewhere', async () => {
    const email = newEmail();
    const missing = await signUp(new Browser(), email, { businessName: ' ' });
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('There is a problem');
    expect(missing.html).toContain('href="#businessName"');
    expect(missing.html).toContain(`value="${email}"`);
    const res = await new Browser().postForm(`${server.url}/oauth/signup`, {
      csrf: 'x'.repeat(43),
      name: 'A',
      email: newEmail(),
      businessName: 'B',
      timeZone: 'UTC',
    });
    expect(res.status).toBe(403);
  });
});

describe('password reset', () => {
  it('answers the same for known and unknown addresses', async () => {
    const tenant = await createTenant(server);
    const ask = async (email: string) => {
      const b = new Browser();
      const page = await form(b, '/oauth/password/forgot');
      const res = await b.postForm(`${server.url}/oauth/password/forgot`, { csrf: page.csrf, email });
      return { status: res.status, html: (await res.text()).replace(email, 'X') };
    };
    const known = await ask(tenant.email);
    const unknown = await ask(newEmail());
    expect(known).toEqual(unknown);
    expect(known.status).toBe(200);
  });

  it('a reset link sets a new password once and revokes every session of the user and every token a sign-in gave them', async () => {
    const tenant = await createTenant(server);
    const browser = new Browser();
    // A refresh token and a sign-in session from before.
    const callback = await authorizeCode(server, tenant, { scope: 'surveys:read' }, browser);
    const tokens = (await postJson(server, '/oauth/token', exchangeFields(callback, tenant))).body;
    expect(tokens.refreshToken).toMatch(/^rt_/);

    const page = await form(browser, '/oauth/password/forgot');
    await browser.postForm(`${server.url}/oauth/password/forgot`, { csrf: page.csrf, email: tenant.email });
    const link = linkIn(await mailTo(tenant.email, 'Reset'));
    const token = new URL(link).searchParams.get('token')!;
    const resetPage = await form(new Browser(), link.slice(server.url.length));
    expect(resetPage.html).toContain('Choose a new password');
    const other = new Browser();
    const o = await form(other, `/oauth/password/reset?token=${token}`);
    const weak = await other.postForm(`${server.url}/oauth/password/reset`, { csrf: o.csrf, token, password: '1234567890' });
    expect(weak.status).toBe(400);
    const done = await other.postForm(`${server.url}/oauth/password/reset`, { csrf: o.csrf, token, password: 'a brand new sentence 9' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');

    // Old refresh token and access token: dead. The old session: asked to sign in again.
    const refreshed = await refreshGrant(server, tenant, tokens.refreshToken);
    expect(refreshed.body.error).toBe('invalid_grant');
    const me = await fetch(`${server.url}/oauth/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(me.status).toBe(401);
    const url = `${server.url}/oauth/authorize?${new URLSearchParams({ responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`;
    expect(await (await browser.request(url)).text()).toContain('Sign in to continue');
    // The old password no longer works, the new one does; the link is spent.
    expect((await signInAttempt(tenant.email, TEST_PASSWORD)).status).toBe(401);
    expect((await signInAttempt(tenant.email, 'a brand new sentence 9')).status).toBe(303);
    const reused = await other.postForm(`${server.url}/oauth/password/reset`, { csrf: o.csrf, token, password: 'another new sentence 7' });
    expect(reused.status).toBe(410);
  });
});

describe('invitations', () => {
  const invite = (tenantHeaders: Record<string, string>, business: string, email: string, role = 'manager') =>
    fetch(`${server.url}/v2/businesses/${business}/invitations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tenantHeaders },
      body: JSON.stringify({ email, role }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('invitation → accept (new account) → member with the role, signing in through a partner client of the business', async () => {
    const tenant = await createTenant(server);
    const email = newEmail();
    const created = await invite(tenant.headers, tenant.businessId, email);
    expect(created.status).toBe(201);
    expect(created.body.object).toBe('invitation');
    expect(created.body.data).toMatchObject({ object: 'invitation', business: tenant.businessId, email, role: 'manager' });
    expect(created.body.data.id).toMatch(/^inv_/);
    expect(created.body.data.expiresAt - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);
    const listed = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/invitations`, { headers: tenant.headers }).then((r) => r.json());
    expect(listed.data.map((i: { id: string }) => i.id)).toContain(created.body.data.id);

    const link = linkIn(await mailTo(email, 'invited'));
    const browser = new Browser();
    const page = await form(browser, link.slice(server.url.length));
    expect(page.html).toContain('Create account and join');
    const token = new URL(link).searchParams.get('token')!;
    const accepted = await browser.postForm(`${server.url}/oauth/invitation`, { csrf: page.csrf, token, name: 'Grace', password: PASSWORD });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe(`${server.config.publicUrl}/portal/`);

    const members = await server.graphql(
      'query($b: ID!) { members(business: $b) { data { email role } } invitations(business: $b) { total } }',
      { b: tenant.businessId },
      tenant.headers,
    );
    expect(members.body.data.members.data).toContainEqual({ email, role: 'manager' });
    expect(members.body.data.invitations.total).toBe(0);
    const events = await server.graphql(
      'query($b: ID!) { events(business: $b, where: {type: {eq: "invitation.accepted"}}) { total } }',
      { b: tenant.businessId },
      tenant.headers,
    );
    expect(events.body.data.events.total).toBe(1);

    const callback = await authorizeCode(server, { ...tenant, email, password: PASSWORD }, { scope: 'surveys:read' });
    const issued = await postJson(server, '/oauth/token', exchangeFields(callback, tenant));
    expect(issued.status).toBe(200);
    expect(issued.body.user).not.toBe(tenant.userId);

    const reused = await browser.postForm(`${server.url}/oauth/invitation`, { csrf: page.csrf, token, name: 'Grace', password: PASSWORD });
    expect(reused.status).toBe(410);
  });

  it('an existing account accepts by signing in', async () => {
    const tenant = await createTenant(server);
    const other = await createTenant(server);
    await invite(tenant.headers, tenant.businessId, other.email, 'staff');
    const link = linkIn(await mailTo(other.email, 'invited'));
    const browser = new Browser();
    const page = await form(browser, link.slice(server.url.length));
    expect(page.html).toContain('Sign in and join');
    const token = new URL(link).searchParams.get('token')!;
    const wrong = await browser.postForm(`${server.url}/oauth/invitation`, { csrf: page.csrf, token, password: 'not it at all' });
    expect(wrong.status).toBe(401);
    const ok = await browser.postForm(`${server.url}/oauth/invitation`, { csrf: page.csrf, token, password: TEST_PASSWORD });
    expect(ok.status).toBe(303);
    const members = await server.graphql('query($b: ID!) { members(business: $b) { data { email role } } }', { b: tenant.businessId }, tenant.headers);
    expect(members.body.data.members.data).toContainEqual({ email: other.email, role: 'staff' });
  });

  it('a revoked and an expired invitation are refused with an HTML page', async () => {
    const tenant = await createTenant(server);
    const revokedEmail = newEmail();
    const revoked = await invite(tenant.headers, tenant.businessId, revokedEmail);
    const revokedLink = linkIn(await mailTo(revokedEmail, 'invited'));
    const del = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/invitations/${revoked.body.data.id}`, {
      method: 'DELETE',
      headers: tenant.headers,
    });
    expect(del.status).toBe(204);
    const r = await new Browser().request(revokedLink);
    expect(r.status).toBe(410);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(await r.text()).toContain('withdrawn');

    const expiredEmail = newEmail();
    const expired = await invite(tenant.headers, tenant.businessId, expiredEmail);
    const expiredLink = linkIn(await mailTo(expiredEmail, 'invited'));
    await server.orm.em.fork().getConnection().execute(`update invitation set expires_at = now() - interval '1 minute' where id = ?`, [expired.body.data.id]);
    await server.orm.em
      .fork()
      .getConnection()
      .execute(`update account_mail set expires_at = now() - interval '1 minute' where invitation_id = ?`, [expired.body.data.id]);
    const e = await new Browser().request(expiredLink);
    expect(e.status).toBe(410);
    expect(e.headers.get('content-type')).toContain('text/html');
    expect(await e.text()).toContain('expired');
  });

  it('POST /members invites the address (e-mailed), with an account or without one', async () => {
    const tenant = await createTenant(server);
    const email = newEmail();
    const post = (body: object) =>
      fetch(`${server.url}/v2/businesses/${tenant.businessId}/members`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...tenant.headers },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const invited = await post({ email: email.toUpperCase(), role: 'staff' });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      object: 'invitation',
      data: expect.objectContaining({ id: expect.stringMatching(/^inv_/), object: 'invitation', business: tenant.businessId, email, role: 'staff' }),
    });
    expect(invited.body.data.__typename).toBeUndefined();
    expect(linkIn(await mailTo(email, 'invited'))).toContain('/oauth/invitation');
    const pending = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/invitations/${invited.body.data.id}`, { headers: tenant.headers }).then((r) =>
      r.json(),
    );
    expect(pending.data).toMatchObject({ email, role: 'staff' });
    // The same address again: already invited, nothing new stored.
    expect((await post({ email, role: 'manager' })).status).toBe(409);
    expect((await post({ email: 'not an address', role: 'manager' })).body.error.details).toEqual([{ field: 'email', message: 'must be an e-mail address' }]);

    const other = await createTenant(server);
    const added = await post({ email: other.email, role: 'manager' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      object: 'invitation',
      data: expect.objectContaining({ object: 'invitation', business: tenant.businessId, email: other.email, role: 'manager' }),
    });
    const invitations = await server.graphql(
      'query($b: ID!) { invitations(business: $b, orderBy: [{field: createdAt, order: asc}]) { data { email } } }',
      { b: tenant.businessId },
      tenant.headers,
    );
    expect(invitations.body.data.invitations.data).toEqual([{ email }, { email: other.email }]);
  });

  it('a member cannot be invited again', async () => {
    const tenant = await createTenant(server);
    const other = await createTenant(server);
    await createMember(server.orm.em.fork(), tenant.businessId, { email: other.email, role: 'manager' });
    const again = await invite(tenant.headers, tenant.businessId, other.email);
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual([{ field: 'email', message: 'already a member' }]);
  });
});
