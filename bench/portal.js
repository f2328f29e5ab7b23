// The business portal's weight and speed: the size of each built file (raw and gzipped), what the first screen
// loads, and the time from navigation to the first screen drawn with its data (the Surveys list, and the Overview)
// in headless Chromium, with the assets cached (a reload) and not (cache disabled). Median of ROUNDS (default 7).
//   npm run bench:portal
// Loopback only, bounded: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { root, startService } from './lib/service.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const dir = path.join(root, 'dist/portal');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const service = await startService('portal');
let browser;
try {
  // Sizes: every asset, and the first screen's share (index.html's script, preloads and stylesheet).
  const files = fs.readdirSync(path.join(dir, 'assets')).filter((f) => !f.endsWith('.map'));
  const size = (f) => {
    const raw = fs.readFileSync(path.join(dir, 'assets', f));
    return { raw: raw.length, gzip: zlib.gzipSync(raw, { level: 9 }).length };
  };
  console.log('portal assets (raw / gzip):');
  for (const f of files.sort()) console.log(`  ${f.padEnd(36)} ${kb(size(f).raw).padStart(9)} / ${kb(size(f).gzip)}`);
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/portal\/assets\/([^"]+)"/g)].map((m) => m[1]);
  const sum = (list, key) => list.reduce((n, f) => n + size(f)[key], 0);
  const js = files.filter((f) => f.endsWith('.js'));
  console.log(`first screen loads: ${initial.join(', ')}: ${kb(sum(initial, 'raw'))} raw, ${kb(sum(initial, 'gzip'))} gzip (+ the screen's own chunk)`);
  console.log(`all JavaScript: ${kb(sum(js, 'raw'))} raw, ${kb(sum(js, 'gzip'))} gzip`);

  // A manager of a business with the demo's survey, signed in once.
  const printed = service.admin('demo');
  const demo = { data: printed.data ?? printed };
  const origin = `http://localhost:${service.port}`; // PUBLIC_URL's default: the portal's redirect is registered there
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  const page = await browser.newPage();
  await page.goto(`${origin}/portal/surveys`);
  await page.getByLabel('E-mail').fill(demo.data.user.email);
  await page.getByLabel('Password').fill(demo.data.user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/portal/surveys`);
  await page.getByRole('link', { name: demo.data.survey.name }).waitFor();
  const cdp = await page.context().newCDPSession(page);

  const drawn = async (address, ready) => {
    const started = performance.now();
    await page.goto(`${origin}${address}`);
    await ready();
    return performance.now() - started;
  };
  const screens = [
    ['/portal/surveys', () => page.getByRole('link', { name: demo.data.survey.name }).waitFor()],
    ['/portal', () => page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()],
  ];
  for (const cached of [true, false]) {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: !cached });
    for (const [address, ready] of screens) {
      const times = [];
      for (let i = 0; i < ROUNDS; i++) times.push(await drawn(address, ready));
      console.log(`navigation to ${address} drawn with its data (${cached ? 'assets cached' : 'no cache'}): median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${ROUNDS} rounds)`);
    }
  }
  console.log('(each navigation includes the token refresh and the screen\'s GraphQL request)');
} finally {
  await browser?.close();
  await service.stop();
}
