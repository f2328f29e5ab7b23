import { useMailingServer, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createBusiness } from '../../src/modules/member/member.service.js';
import { createCredential } from '../../src/modules/oauth/credential.service.js';
import { Credential } from '../../src/modules/oauth/credential.entity.js';
import { Membership } from '../../src/modules/user/membership.entity.js';
import { Browser, authorizeCode, authorizeUrl, exchangeFields, hiddenField, postJson, refreshGrant } from './oauth-helpers.js';

/** Issue 48 item 7, over HTTP with the real SMTP server: what a password reset leaves standing, and what it ends. */
let server: TestServer;
let mailbox: MailBox;
useMailingServer((started) => ({ server, mail: mailbox } = started));

const NEW_PASSWORD = 'a brand new sentence 9';
/** The link in a mail, on this test server's real address (PUBLIC_URL names port 4000). */
const linkIn = (mail: ReceivedMail) => /(http\S+token=\S+)/.exec(mail.body)![1].replace(/[.)]$/, '').replace(server.config.publicUrl, server.url);

async function form(browser: Browser, path: string) {
  const res = await browser.request(`${server.url}${path}`);
  const html = await res.text();
  return { status: res.status, html, csrf: res.status === 200 ? hiddenField(html, 'csrf') : '' };
}

/** "Forgot your password?" for the tenant, and the reset mail it gets. */
async function askReset(tenant: Tenant): Promise<ReceivedMail> {
  const browser = new Browser();
  const page = await form(browser, '/oauth/password/forgot');
  const asked = await browser.postForm(`${server.url}/oauth/password/forgot`, { csrf: page.csrf, email: tenant.email });
  expect(asked.status).toBe(200);
  return mailbox.waitFor((m) => m.to.includes(tenant.email) && m.subject.includes('Reset'), 10_000);
}

/** Sets the new password through the mail's link; answers the "Password changed" page (its HTML). */
async function reset(mail: ReceivedMail): Promise<string> {
  const browser = new Browser();
  const token = new URL(linkIn(mail)).searchParams.get('token')!;
  const page = await form(browser, `/oauth/password/reset?token=${token}`);
  const done = await browser.postForm(`${server.url}/oauth/password/reset`, { csrf: page.csrf, token, password: NEW_PASSWORD });
  expect(done.status).toBe(200);
  return done.text();
}

/** Until the next whole second has just begun: what follows then happens within one second of the clock. */
async function startOfASecond() {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

/** A new owner who asked for a reset, and the sign-in page of an authorization request open in a browser of theirs. */
async function resetAskedWithSignInOpen() {
  const tenant = await createTenant(server);
  const mail = await askReset(tenant);
  const browser = new Browser();
  const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', state: 's' });
  const signInPage = await form(browser, url.slice(server.url.length));
  return { tenant, mail, browser, url, signInPage };
}

describe('a sign-in right after a password reset', () => {
  it('works at once: the session issued in the reset’s own second stands', async () => {
    const { tenant, mail, browser, url, signInPage } = await resetAskedWithSignInOpen();

    // The reset and the sign-in in one second of the clock (a person who signs in at once, a fast machine).
    await startOfASecond();
    await reset(mail);
    const signedIn = await browser.postForm(url, { csrf: signInPage.csrf, action: 'signin', email: tenant.email, password: NEW_PASSWORD });
    expect(signedIn.status).toBe(303);

    // The session is good: the consent page, not the empty sign-in form again.
    const next = await browser.request(new URL(signedIn.headers.get('location')!, server.url).toString());
    const html = await next.text();
    expect(next.status).toBe(200);
    expect(html).toContain('Allow');
    expect(html).not.toContain('name="password"');
  });

  it('still voids a session issued before the reset, however close to it', async () => {
    const { tenant, mail, browser, url, signInPage } = await resetAskedWithSignInOpen();
    await startOfASecond();
    const signedIn = await browser.postForm(url, { csrf: signInPage.csrf, action: 'signin', email: tenant.email, password: tenant.password });
    expect(signedIn.status).toBe(303);
    await reset(mail);
    const next = await browser.request(url);
    expect(await next.text()).toContain('Sign in to continue');
  });
});

/** A client_credentials token of a credential, or the token endpoint's refusal. */
const mint = (clientId: string, clientSecret: string) => postJson(server, '/oauth/token', { grantType: 'client_credentials', clientId, clientSecret });
/** Whether a token still reads its business (GraphQL answers 200 with UNAUTHENTICATED when it is revoked). */
async function reads(tenant: Tenant, accessToken: string) {
  const res = await server.graphql('query($b: ID!) { business(id: $b) { id } }', { b: tenant.businessId }, { authorization: `Bearer ${accessToken}` });
  return res.body.errors?.[0]?.extensions?.code ?? 'ok';
}
const ROTATE = 'mutation($b: ID!, $id: ID!) { rotateCredentialSecret(business: $b, id: $id) { id object clientId clientSecret createdBy updatedAt } }';

describe('what a password reset leaves to the credentials the user created', () => {
  it('the reset mail and the "Password changed" page name each credential acting for the user, with its business, and the portal screen to rotate it', async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Ada' });
    const em = server.orm.em.fork();
    // A second credential of theirs; one another member made; one of a business they have left.
    await createCredential(em, { business: tenant.businessId, name: 'POS sync', validRedirectUris: [tenant.redirectUri], createdBy: tenant.userId });
    const other = await createUser(em, { email: `other-${tenant.userId}@example.com`, password: 'another long password 1', name: 'Other' });
    em.create(Membership, { user: other.id, business: tenant.businessId, role: 'manager' });
    await em.flush();
    await createCredential(em, { business: tenant.businessId, name: 'Their dashboard', validRedirectUris: [tenant.redirectUri], createdBy: other.id });
    const { business: left } = await createBusiness(em, { name: 'Old Diner', owner: tenant.userId });
    await createCredential(em, { business: left.id, name: 'Old till', validRedirectUris: [tenant.redirectUri], createdBy: tenant.userId });
    await em.fork().nativeDelete(Membership, { user: tenant.userId, business: left.id });

    const mail = await askReset(tenant);
    expect(mail.body).toMatch(/\n- Test App \(Cafe Ada\)\r?\n- POS sync \(Cafe Ada\)\r?\n/);
    expect(mail.body).toContain(`${server.config.publicUrl}/portal/credentials`);
    expect(mail.body).not.toContain('Their dashboard');
    expect(mail.body).not.toContain('Old till');

    const page = await reset(mail);
    expect(page).toContain('Password changed');
    expect(page).toContain('still act for you: Test App (Cafe Ada), POS sync (Cafe Ada).');
    expect(page).toContain(`href="${server.config.publicUrl}/portal/credentials"`);
  });

  it('the reset mail of a user who created no credential says nothing of them', async () => {
    const tenant = await createTenant(server);
    await server.orm.em.fork().nativeDelete(Credential, { id: tenant.credentialId });
    const mail = await askReset(tenant);
    expect(mail.body).toContain('/oauth/password/reset?token=');
    expect(mail.body).not.toContain('API credential');
  });

  it("revokes what a sign-in gave, not what a credential's secret mints; rotating the secret ends that, once, for its old secret only", async () => {
    const tenant = await createTenant(server);
    // Before the reset: a sign-in's tokens through the tenant's client, and a token its secret minted.
    const before = (await postJson(server, '/oauth/token', exchangeFields(await authorizeCode(server, tenant, { scope: 'surveys:read' }), tenant))).body;
    const minted = await mint(tenant.clientId, tenant.clientSecret);
    expect(minted.status).toBe(200);

    await reset(await askReset(tenant));
    expect(await reads(tenant, before.accessToken)).toBe('UNAUTHENTICATED');
    const refreshed = await refreshGrant(server, tenant, before.refreshToken);
    expect(refreshed.body.error).toBe('invalid_grant');
    // The app holding the secret goes on, as the mail says: its token, and a new one.
    expect(await reads(tenant, minted.body.accessToken)).toBe('ok');
    expect((await mint(tenant.clientId, tenant.clientSecret)).status).toBe(200);

    // The person signs in with the new password and rotates the secret (a member's grant through the same client).
    const person = { ...tenant, password: NEW_PASSWORD };
    const grant = (
      await postJson(server, '/oauth/token', exchangeFields(await authorizeCode(server, person, { scope: 'credentials:read credentials:write' }), tenant))
    ).body;
    const rotated = await server.graphql(ROTATE, { b: tenant.businessId, id: tenant.credentialId }, { authorization: `Bearer ${grant.accessToken}` });
    expect(rotated.body.errors).toBeUndefined();
    const answer = rotated.body.data.rotateCredentialSecret;
    expect(answer).toMatchObject({ id: tenant.credentialId, object: 'credential', clientId: tenant.clientId, createdBy: tenant.userId });
    expect(answer.clientSecret).toMatch(/^cs_/);
    expect(answer.clientSecret).not.toBe(tenant.clientSecret);

    // The old secret mints nothing more, and what it minted is revoked; the new one mints.
    const refused = await mint(tenant.clientId, tenant.clientSecret);
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expect(await reads(tenant, minted.body.accessToken)).toBe('UNAUTHENTICATED');
    const fresh = await mint(tenant.clientId, answer.clientSecret);
    expect(fresh.status).toBe(200);
    expect(await reads(tenant, fresh.body.accessToken)).toBe('ok');
    // The member's grant stands: refreshing it takes the new secret, and only the new one.
    const withOld = await refreshGrant(server, tenant, grant.refreshToken);
    expect(withOld.status).toBe(401);
    const withNew = await refreshGrant(server, { clientId: tenant.clientId, clientSecret: answer.clientSecret }, grant.refreshToken);
    expect(withNew.status).toBe(200);

    // The secret is in that one answer: reading the credential never shows it; the change is an event.
    const read = await server.graphql(
      'query($b: ID!, $id: ID!) { credential(business: $b, id: $id) { id updatedAt } }',
      { b: tenant.businessId, id: tenant.credentialId },
      { authorization: `Bearer ${fresh.body.accessToken}` },
    );
    expect(read.body.data.credential.updatedAt).toBe(answer.updatedAt);
    const events = await server.graphql(
      'query($b: ID!) { events(business: $b, where: {type: {eq: "credential.updated"}}) { data { data } } }',
      { b: tenant.businessId },
      { authorization: `Bearer ${fresh.body.accessToken}` },
    );
    expect(events.body.data.events.data).toHaveLength(1);
    expect(JSON.stringify(events.body.data.events.data)).not.toContain(answer.clientSecret);
  });

  it('rotates only with credentials:write, only in its business, and a refusal changes nothing', async () => {
    const tenant = await createTenant(server);
    const reader = await createTenant(server, { scopes: ['credentials:read'] });
    const stranger = await createTenant(server);
    const asReader = await server.graphql(ROTATE, { b: reader.businessId, id: reader.credentialId }, reader.headers);
    expect(asReader.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(asReader.body.errors[0].message).toContain('credentials:write');
    // Another business's credential, named under one's own business or under its own: not found, and forbidden.
    const underOwn = await server.graphql(ROTATE, { b: stranger.businessId, id: tenant.credentialId }, stranger.headers);
    expect(underOwn.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const underTheirs = await server.graphql(ROTATE, { b: tenant.businessId, id: tenant.credentialId }, stranger.headers);
    expect(underTheirs.body.errors[0].extensions.code).toBe('FORBIDDEN');
    for (const t of [tenant, reader]) expect((await mint(t.clientId, t.clientSecret)).status).toBe(200);
  });
});
