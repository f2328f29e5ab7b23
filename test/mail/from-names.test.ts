import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startMailBox, type MailBox, type ReceivedMail } from '../helpers/smtp.js';
import { restaurant } from '../cases/case.fixtures.js';
import { Browser, hiddenField } from '../oauth/oauth-helpers.js';

/**
 * Issue 49 item 6 over real HTTP and the real SMTP server: a business's mail (feedback requests, alerts, replies) comes
 * from the business's name on the configured address, account mail from the service's (MAIL_FROM's own name); an
 * alert's subject names the location once, also when the location's name already carries the business's.
 */
jest.setTimeout(90_000);

let server: TestServer;
let mail: MailBox;
beforeAll(async () => {
  mail = await startMailBox();
  server = await startTestServer({ env: { SMTP_URL: mail.url, MAIL_OUTBOX: undefined, MAIL_FROM: 'Feedback Service <no-reply@example.com>' }, workers: true });
});
afterAll(async () => {
  await server?.stop();
  await mail?.close();
});

/** The From header's display name, when its address is the configured one. */
const fromNameOf = (m: ReceivedMail) => {
  const found = /^"?([^"<]*?)"?\s*<no-reply@example\.com>$/.exec(m.headers.from);
  if (!found) throw new Error(`From is not the configured address: ${m.headers.from}`);
  return found[1];
};
const guestEmail = () => `guest-${randomBytes(5).toString('hex')}@example.com`;

describe('From display names', () => {
  it("feedback requests, alerts and replies come from the business's name; an alert's subject names the location once", async () => {
    const r = await restaurant(server, 'Cafe Nihari');
    const ownBranch = await r.made('/locations', { name: 'Cafe Nihari Gulberg' });
    await r.made('/feedback-flows', { name: 'After every order', survey: r.survey, channels: ['email'], delayMinutes: 0, quietHours: null });
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 4 }, notify: [{ role: 'owner' }] });

    const guest = guestEmail();
    const order = await r.order({ customerEmail: guest });
    const request = await mail.waitFor((m) => m.to.includes(guest), 30_000);
    expect(fromNameOf(request)).toBe('Cafe Nihari');

    const atBranch = await r.caseOf(await r.answer({ taste: 1, text: 'Cold', order, location: ownBranch }));
    const alert = await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(atBranch.id), 30_000);
    expect(fromNameOf(alert)).toBe('Cafe Nihari');
    expect(alert.subject).toBe('Unhappy guest at Cafe Nihari Gulberg: Taste 1 of 10');
    const elsewhere = await r.caseOf(await r.answer({ taste: 2, location: r.location }));
    expect((await mail.waitFor((m) => m.to.includes(r.tenant.email) && m.body.includes(elsewhere.id), 30_000)).subject).toBe(
      'Unhappy guest at Cafe Nihari at Gulberg: Taste 2 of 10',
    );

    expect((await r.call('POST', `/cases/${atBranch.id}/messages`, { body: 'Sorry about the cold food.', channel: 'email' })).status).toBe(201);
    const reply = await mail.waitFor((m) => m.to.includes(guest) && m.body.includes('Sorry about the cold food.'), 30_000);
    expect(fromNameOf(reply)).toBe('Cafe Nihari');
  });

  it("account mail comes from the service's name", async () => {
    const email = guestEmail();
    const browser = new Browser();
    const page = await (await browser.request(`${server.url}/oauth/signup`)).text();
    await browser.postForm(`${server.url}/oauth/signup`, {
      csrf: hiddenField(page, 'csrf'),
      name: 'Ada Owner',
      email,
      businessName: 'Cafe Ada',
      timeZone: 'UTC',
    });
    const confirmation = await mail.waitFor((m) => m.to.includes(email), 30_000);
    expect(fromNameOf(confirmation)).toBe('Feedback Service');
  });
});
