import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startMailBox, type MailBox } from '../helpers/smtp.js';
import { createTenant } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import fs from 'node:fs';
import { pino } from 'pino';
import { startService, tempDataDir, waitForReady } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/database.js';
import { codeBlocks, readDoc } from '../helpers/docs.js';
import { until } from '../helpers/until.js';
import { rows } from '../ingest/ingest-helpers.js';
import { restaurant } from '../cases/case.fixtures.js';
import { Browser, hiddenField } from '../oauth/oauth-helpers.js';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/http/logger.js';
import { startWorkers } from '../../src/worker/worker.runner.js';
import type { Config } from '../../src/config.js';

/**
 * Issue 49 item 5 over real HTTP and the real SMTP server: with no e-mail sender the account pages say so (never
 * "we have sent"), in the same words for a known and an unknown address; the sign-up's confirmation, failed for want
 * of a sender, is delivered once the service restarts with SMTP_URL, and its link works; MAIL_OUTBOX=dev is refused
 * with NODE_ENV=production.
 */
jest.setTimeout(120_000);

let server: TestServer;
let mail: MailBox;
/** What the service logged at warn and above. */
const warnings: string[] = [];
/** The app and workers of the restart, on the server's database. */
let restarted: { stop(): Promise<void> } | undefined;
beforeAll(async () => {
  mail = await startMailBox();
  // No sender at all: SMTP_URL and the outbox unset whatever the environment of the run says.
  server = await startTestServer({
    env: { SMTP_URL: undefined, MAIL_OUTBOX: undefined },
    workers: true,
    logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) }),
  });
});
afterAll(async () => {
  if (restarted) {
    await restarted.stop();
    await server.db.drop();
  } else await server?.stop();
  await mail?.close();
}, 60_000);

const newEmail = (who: string) => `${who}-${randomBytes(5).toString('hex')}@example.com`;

/** Loads a form page and posts to `action` with `fields` (the CSRF pair as a browser holds it); answers the page. */
async function post(action: string, fields: Record<string, string>, formPage = action) {
  const browser = new Browser();
  const html = await (await browser.request(`${server.url}${formPage}`)).text();
  const res = await browser.postForm(`${server.url}${action}`, { csrf: hiddenField(html, 'csrf'), ...fields });
  return { status: res.status, html: await res.text() };
}
const signUp = (email: string) => post('/oauth/signup', { name: 'Ada Owner', email, businessName: 'Cafe Ada', timeZone: 'UTC' });
/** The page's words, the address put aside: what tells one answer from another. */
const wordsOf = (html: string, email: string) => html.replaceAll(email, 'ADDRESS').replace(/<input type="hidden" name="csrf" value="[^"]*">/g, '');

describe('no e-mail sender', () => {
  it('the sign-up and reset pages say that e-mail cannot be sent and what the operator must set, the same for known and unknown addresses', async () => {
    const page = await (await fetch(`${server.url}/oauth/signup`)).text();
    expect(page).toContain('E-mail cannot be sent from this installation');
    expect(page).toContain('SMTP_URL');
    expect(page).toContain('MAIL_OUTBOX&#61;dev'); // escaped as every value of a page is
    expect(await (await fetch(`${server.url}/oauth/password/forgot`)).text()).toContain('E-mail cannot be sent from this installation');

    const confirmed = (await createTenant(server)).email;
    const awaiting = newEmail('awaiting');
    await signUp(awaiting);
    const unknown = newEmail('unknown');
    const answers = [];
    for (const email of [unknown, awaiting, confirmed]) {
      const signedUp = await signUp(email);
      expect(signedUp.status).toBe(200);
      expect(signedUp.html).not.toContain('We have sent');
      expect(signedUp.html).toContain('E-mail cannot be sent yet');
      expect(signedUp.html).toContain('SMTP_URL');
      const reset = await post('/oauth/password/forgot', { email });
      const resent = await post('/oauth/verify/resend', { email }, '/oauth/signup');
      for (const answer of [reset, resent]) {
        expect(answer.status).toBe(200);
        expect(answer.html).not.toContain('we have sent');
        expect(answer.html).toContain('E-mail cannot be sent yet');
      }
      answers.push({ signedUp: wordsOf(signedUp.html, email), reset: wordsOf(reset.html, email), resent: wordsOf(resent.html, email) });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('a confirmation and a feedback request that found no sender are sent once the service restarts with SMTP_URL, the link working', async () => {
    const email = newEmail('later');
    expect((await signUp(email)).status).toBe(200);
    const [failed] = await until(
      () => rows(server, "select status, error from account_mail where email = ? and kind = 'verify'", [email]),
      (r) => r[0]?.status === 'failed',
    );
    expect(failed.error).toContain('no sender configured for e-mail');
    // The log said so at start, and at the mail.
    expect(warnings.some((w) => w.startsWith('no e-mail sender: sign-up confirmations, password resets'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('account mail not sent: no e-mail sender is configured. Set SMTP_URL'))).toBe(true);
    expect(mail.mails.filter((m) => m.to.includes(email))).toEqual([]);
    // A flow's feedback request likewise, within its window.
    const r = await restaurant(server, 'Cafe Later');
    await r.made('/feedback-flows', { name: 'After every order', survey: r.survey, channels: ['email'], delayMinutes: 0, quietHours: null });
    const guest = newEmail('guest');
    const order = await r.made('/orders', { externalOrderId: `o-${randomBytes(4).toString('hex')}`, total: 900, currency: 'PKR', customerEmail: guest });
    await until(
      () => rows(server, 'select status from feedback_request where order_id = ?', [order]),
      (q) => q[0]?.status === 'failed',
    );

    // The same database, a new app and workers with a sender (as a restart with SMTP_URL set).
    await server.app.stop();
    await server.workers!.stop();
    const port = await freePort();
    const config: Config = { ...server.config, publicUrl: `http://127.0.0.1:${port}`, feedback: { ...server.config.feedback, smtpUrl: mail.url } };
    const logger = createLogger('silent');
    const app = await createApp({ orm: server.orm, logger, config });
    const workers = await startWorkers({ orm: server.orm, logger, config });
    restarted = {
      async stop() {
        await app.stop();
        await workers.stop();
      },
    };
    await app.listen(port, '127.0.0.1');
    const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject === 'Confirm your e-mail address', 30_000);
    const link = /(http\S+token=\S+)/.exec(sent.body)![1];
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain(`Choose a password for the account of ${email}`);
    const request = await mail.waitFor((m) => m.to.includes(guest), 30_000);
    expect(request.subject).toContain('Cafe Later');
    expect(
      await until(
        () => rows(server, 'select status from feedback_request where order_id = ?', [order]),
        (q) => q[0]?.status === 'sent',
      ),
    ).toEqual([{ status: 'sent' }]);
    // The sign-up page no longer warns.
    expect(await (await fetch(`http://127.0.0.1:${port}/oauth/signup`)).text()).not.toContain('E-mail cannot be sent');
  });
});

describe('MAIL_OUTBOX=dev', () => {
  it('is refused with NODE_ENV=production: the process exits with a message saying why and what to set', async () => {
    const service = startService({ NODE_ENV: 'production', MAIL_OUTBOX: 'dev', PORT: String(await freePort()), DATA_DIR: tempDataDir() });
    // Exits, or (wrongly) gets ready, and is then stopped: either way no process is left behind.
    const outcome = await Promise.race([
      service.exited.then((code) => ({ code })),
      waitForReady(service).then(
        () => ({ ready: true }),
        () => ({ code: service.child.exitCode }),
      ),
    ]);
    if ('ready' in outcome) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    expect(outcome).toEqual({ code: 2 });
    expect(service.output()).toContain('MAIL_OUTBOX=dev is refused with NODE_ENV=production');
    expect(service.output()).toContain('set SMTP_URL');
  });
});

describe("the docs' dev outbox example", () => {
  it('README and docs/accounts.md start it as `NODE_ENV=development MAIL_OUTBOX=dev npm start`, which npm start keeps, and a sign-up then shows in the outbox', async () => {
    const examples = ['README.md', 'docs/accounts.md'].flatMap((file) => codeBlocks(readDoc(file), 'sh').filter((b) => b.includes('MAIL_OUTBOX')));
    expect(examples.map((b) => b.trim())).toEqual(['NODE_ENV=development MAIL_OUTBOX=dev npm start', 'NODE_ENV=development MAIL_OUTBOX=dev npm start']);
    // npm start sets NODE_ENV=production only when it is not given: the example's development stands.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's default expansion, as package.json writes it.
    expect(JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts.start).toContain('export NODE_ENV=${NODE_ENV:-production}');
    const env = Object.fromEntries([...examples[0].matchAll(/\b([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]));
    expect(env).toEqual({ NODE_ENV: 'development', MAIL_OUTBOX: 'dev' });

    // The service as npm start runs it (src/main.ts), with the example's variables, on a database of its own.
    const db = await createTestDatabase();
    await db.orm.close(true);
    const port = String(await freePort());
    const service = startService({ ...env, PORT: port, DATABASE_URL: db.url, PUBLIC_URL: `http://127.0.0.1:${port}` });
    try {
      await waitForReady(service);
      expect(service.logs().some((l) => String(l.msg).includes('MAIL_OUTBOX=dev: e-mail and texts are kept, not sent'))).toBe(true);
      const email = newEmail('newcomer');
      const browser = new Browser();
      const page = await (await browser.request(`${service.url}/oauth/signup`)).text();
      expect(page).not.toContain('E-mail cannot be sent');
      await browser.postForm(`${service.url}/oauth/signup`, {
        csrf: hiddenField(page, 'csrf'),
        name: 'Ada Owner',
        email,
        businessName: 'Cafe Ada',
        timeZone: 'UTC',
      });
      const outbox = await until(
        () => fetch(`${service.url}/portal/dev/outbox`).then((r) => r.text()),
        (html) => html.includes(email),
      );
      expect(outbox).toContain('Confirm your e-mail address');
      expect(outbox).toMatch(new RegExp(`<a href="http://127\\.0\\.0\\.1:${port}/oauth/verify\\?token&#61;ev_`));
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      await db.drop();
    }
  });
});
