import { startMailBox, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { Browser, authorizeUrl, hiddenField } from './oauth-helpers.js';

/** Issue 48 item 7, over HTTP with the real SMTP server: what a password reset leaves standing, and what it ends. */
let server: TestServer;
let mailbox: MailBox;
beforeAll(async () => {
  mailbox = await startMailBox();
  process.env.__RESET_SMTP = mailbox.url;
});
useTestServer((s) => (server = s), { workers: true, env: { get SMTP_URL() { return process.env.__RESET_SMTP; } } as never });
afterAll(() => mailbox.close());

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

/** Sets the new password through the mail's link; answers the "Password changed" page. */
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

describe('a sign-in right after a password reset', () => {
  it('works at once: the session issued in the reset’s own second stands', async () => {
    const tenant = await createTenant(server);
    const mail = await askReset(tenant);
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', state: 's' });
    const signInPage = await form(browser, url.slice(server.url.length));

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
    const tenant = await createTenant(server);
    const mail = await askReset(tenant);
    const browser = new Browser();
    const url = authorizeUrl(server, { responseType: 'code', clientId: tenant.clientId, redirectUri: tenant.redirectUri, scope: 'surveys:read', state: 's' });
    const signInPage = await form(browser, url.slice(server.url.length));
    await startOfASecond();
    const signedIn = await browser.postForm(url, { csrf: signInPage.csrf, action: 'signin', email: tenant.email, password: tenant.password });
    expect(signedIn.status).toBe(303);
    await reset(mail);
    const next = await browser.request(url);
    expect(await next.text()).toContain('Sign in to continue');
  });
});
