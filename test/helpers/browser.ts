import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './server.js';
import { startMailBox, type MailBox } from './smtp.js';

/**
 * Debian's Chromium driven by playwright-core: nothing is downloaded at install. The flags keep it from reaching
 * for outside hosts, which this machine (and CI) cannot reach.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const ROOT = path.resolve(import.meta.dirname, '../..');
export const RESULTS_DIR = path.join(ROOT, 'test-results');

export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The portal built into dist/ as the service serves it (scripts/build-portal.js): for tests that open its screens. */
export const buildPortal = () => promisify(execFile)(process.execPath, ['scripts/build-portal.js'], { cwd: ROOT });

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}: install it with apt-get install -y chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /** Errors the page raised or logged (script errors, CSP violations, failed loads): a clean page has none. */
  problems: string[];
}

/** Records every request of `page` that leaves 127.0.0.1 (the list stays empty for a page that loads nothing from elsewhere). */
export function offsiteRequests(page: Page): string[] {
  const offsite: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['blob:', 'data:'].includes(url.protocol) && url.hostname !== '127.0.0.1') offsite.push(r.url());
  });
  return offsite;
}

/** Fills in and sends the sign-in page the portal sent `page` to. */
export async function signInOnPage(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A fresh context (its own cookies) and page; phone-sized with `PHONE`. */
/** A portal screen at `url`, signed in as `who` on `page`: back at that address, its heading drawn, its data loaded. */
export async function signedInAt(page: Page, url: string, who: { email: string; password: string }): Promise<Page> {
  await page.goto(url);
  await signInOnPage(page, who);
  await page.waitForURL(url);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await portalLoaded(page);
  return page;
}

/** The error text tied to a control (its aria-describedby's error id), as a screen reader reads it beside the field. */
export async function errorOf(page: Page, control: Locator): Promise<string | null> {
  const ids = (await control.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const id = ids.find((x) => x.endsWith('-error'));
  return id ? page.locator(`[id="${id}"]`).textContent() : null;
}

export async function openPage(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserPage> {
  const context = await browser.newContext({ locale: 'en-GB', ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // A page answered with a 4xx is logged by Chromium as a failed load; tests assert those statuses themselves.
    if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) {
      problems.push(`console: ${msg.text()}`);
    }
  });
  return { context, page, problems };
}

/**
 * `newPage` for a test file: each page it opens is checked for problems (none allowed) and closed after each test.
 * Call at the top level of the file, with a getter for the browser that beforeAll launches.
 */
export function pagesChecked(browser: () => Browser) {
  const open: BrowserPage[] = [];
  afterEach(async () => {
    for (const p of open.splice(0)) {
      expect(p.problems).toEqual([]);
      await p.context.close();
    }
  });
  return async (options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserPage> => {
    const p = await openPage(browser(), options);
    open.push(p);
    return p;
  };
}

type ServerOptions = Parameters<typeof startTestServer>[0];

/**
 * This file's server and browser, started together before its tests and closed after them; returns its `newPage`
 * (pagesChecked). `ready` receives them before the first test (to prepare a business, open a page). `options` are
 * startTestServer's, or a function making them once what they name is started (a mail box, a free port).
 */
export function useServerAndBrowser(
  ready: (started: { server: TestServer; browser: Browser }) => unknown,
  options: ServerOptions | (() => ServerOptions | Promise<ServerOptions>) = {},
) {
  let started: { server: TestServer; browser: Browser } | undefined;
  // Chromium, a server and what `ready` prepares (a build of the portal, a seeded business) on a busy machine.
  beforeAll(async () => {
    const [server, browser] = await Promise.all([startTestServer(typeof options === 'function' ? await options() : options), launchBrowser()]);
    started = { server, browser };
    await ready(started);
  }, 120_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.server.stop();
  });
  return pagesChecked(() => started!.browser);
}

/**
 * useServerAndBrowser with an SMTP receiver the server mails through (SMTP_URL), started before it and closed after
 * it; `ready` receives it as `mail`.
 */
export function useServerBrowserAndMail(
  ready: (started: { server: TestServer; browser: Browser; mail: MailBox }) => unknown,
  options: ServerOptions | (() => ServerOptions | Promise<ServerOptions>) = {},
) {
  let mail: MailBox | undefined;
  beforeAll(async () => {
    mail = await startMailBox();
  });
  const newPage = useServerAndBrowser(
    (started) => ready({ ...started, mail: mail! }),
    async () => {
      const given = typeof options === 'function' ? await options() : options;
      return { ...given, env: { SMTP_URL: mail!.url, ...given?.env } };
    },
  );
  afterAll(() => mail?.close());
  return newPage;
}

/**
 * test-results/<name>.png (ignored by git): what a person saw at that step. Tried twice: once in a CI run on a busy
 * machine, Chromium never delivered the frame of one full-page capture (after "fonts loaded") and the 30 s timeout
 * failed a walkthrough whose every assertion had passed; a second capture of the same page is taken at once.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.png`);
  try {
    await page.screenshot({ path: file, fullPage: true, timeout: 15_000 });
  } catch (err) {
    if ((err as Error).name !== 'TimeoutError') throw err;
    await page.screenshot({ path: file, fullPage: true });
  }
  return file;
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2.x A/AA rules on the page as it is. Evaluated through the DevTools protocol, so the page's own
 * Content-Security-Policy (no scripts at all on the sign-in pages) does not have to be loosened for the test.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: { target: string[] }) => n.target.join(' ')) }));
  });
}

/**
 * axe on a copy of what `page` shows (its HTML as it stands, served at the same address) in a context of its own with
 * JavaScript on: axe-core is itself a script, and in a context with JavaScript off its run does not settle on some
 * pages. For the pages tested with JavaScript off, including those a form's POST answered.
 */
export async function axeViolationsOfCopy(page: Page): Promise<AxeViolation[]> {
  const html = await page.content();
  const context = await page
    .context()
    .browser()!
    .newContext({ viewport: page.viewportSize() ?? undefined });
  try {
    const copy = await context.newPage();
    await copy.route(page.url(), (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    await copy.goto(page.url());
    return await axeViolations(copy);
  } finally {
    await context.close();
  }
}

/** Whether the page fits its viewport's width (nothing to scroll sideways on a phone). */
export const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Waits until the portal's screen has its data (no "Loading …" status left). */
export const portalLoaded = (page: Page) =>
  page.waitForFunction(() => !Array.from(document.querySelectorAll('[role=status]')).some((s) => s.textContent?.startsWith('Loading')));

/**
 * A portal screen as it stands, on a desktop and on a 390 px phone: axe finds nothing and nothing is wider than the
 * screen (test-results/portal-<name>-<size>.png shows each). Leaves the page at the desktop size.
 */
export async function checkPortalScreen(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', PHONE.viewport],
  ] as const) {
    await page.setViewportSize(viewport);
    expect({ name, size, violations: await axeViolations(page) }).toEqual({ name, size, violations: [] });
    expect({ name, size, fits: await fitsWidth(page) }).toEqual({ name, size, fits: true });
    await screenshot(page, `portal-${name}-${size}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Runs `act` (a click or key press that submits a form) and waits until the next document has loaded. The listener is
 * attached before the act: waiting on the URL or load state afterwards would resolve on the page being left, and the
 * test would then read the previous step.
 */
export async function untilNextPage(page: Page, act: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.waitForEvent('load'), act()]);
}

/** Presses Tab until the element matching `selector` has the focus (a keyboard-only user's way to it). */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Tabs to the form's submit button and presses Enter, waiting for the page the form leads to. */
export async function submitByKeyboard(page: Page): Promise<void> {
  await tabTo(page, 'button[type=submit]');
  await untilNextPage(page, () => page.keyboard.press('Enter'));
}

/** What a guest page shows of the business's brand, read from the DOM the browser built. */
export const brandShown = (page: Page) =>
  page.evaluate(() => {
    const img = document.querySelector<HTMLImageElement>('header .brand img');
    const button = document.querySelector('button[type=submit], a.review');
    return {
      name: document.querySelector('header .brand .name')?.textContent,
      logoLoaded: !!img && img.complete && img.naturalWidth > 0,
      logoAlt: img?.getAttribute('alt'),
      buttonBackground: button ? getComputedStyle(button).backgroundColor : null,
    };
  });
