// The business portal's weight and speed: the size of each built file (raw and gzipped), what the Overview loads
// (its JavaScript, charts included, must stay under 250 KB gzipped), and the time from navigation to the screen drawn
// with its data (the Surveys list; the Overview with its charts drawn, over SUBMISSIONS (10,000) submissions of the
// last 28 days) in headless Chromium, with the assets cached (a reload) and not (cache disabled). Median of ROUNDS
// (default 7).
//   npm run bench:portal
// Loopback only, bounded: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import pg from 'pg';
import { root, startService } from './lib/service.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SUBMISSIONS = Number(process.env.SUBMISSIONS ?? 10_000);
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

  // The demo survey's feedback: SUBMISSIONS guests over the last 28 days, written with SQL but with the table's
  // triggers on, so the analytics rollups are kept as the service keeps them.
  const sql = new pg.Client(service.databaseUrl());
  await sql.connect();
  const {
    rows: [step],
  } = await sql.query(`select id, business_id, survey_id, metric_ids from survey_step where survey_id = $1 and type = 'metrics' order by position limit 1`, [
    demo.data.survey.id,
  ]);
  const ratings = step.metric_ids.map((m, k) => `'${m}', 1 + abs(hashint4(g * 5 + ${k})) % 5`).join(', ');
  const t = performance.now();
  await sql.query(
    `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, status, source, channel)
     select 'sub_P' || lpad(g::text, 25, '0'), ts, ts, $1, $2,
            jsonb_build_array(jsonb_build_object('step', $3::text, 'ratings', jsonb_build_object(${ratings}))),
            '{}', 'completed', 'page', (array['qr', 'link', 'sms', 'email'])[1 + abs(hashint4(g)) % 4]
       from (select g, now() - (abs(hashint4(g * 11)) % (28 * 86400)) * interval '1 second' as ts from generate_series(1, $4::int) g) x`,
    [step.business_id, step.survey_id, step.id, SUBMISSIONS],
  );
  await sql.query('analyze');
  await sql.end();
  console.log(`seeded ${SUBMISSIONS} submissions (rollups kept by the triggers) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const origin = `http://localhost:${service.port}`; // PUBLIC_URL's default: the portal's redirect is registered there
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
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
    ['/portal', () => page.locator('[data-testid="chart-score-per-metric"][data-drawn]').waitFor()],
  ];
  for (const cached of [true, false]) {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: !cached });
    for (const [address, ready] of screens) {
      const times = [];
      for (let i = 0; i < ROUNDS; i++) times.push(await drawn(address, ready));
      console.log(
        `navigation to ${address} drawn with its data (${cached ? 'assets cached' : 'no cache'}): median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${ROUNDS} rounds)`,
      );
    }
  }
  console.log("(each navigation includes the token refresh and the screen's GraphQL request)");
  // What the Overview really loads, charts included: every script the browser fetched for it.
  const loaded = new Set();
  page.on('response', (r) => {
    const m = /\/portal\/assets\/([^/?]+\.js)$/.exec(new URL(r.url()).pathname);
    if (m) loaded.add(m[1]);
  });
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await drawn('/portal', screens[1][1]);
  const overviewJs = [...loaded];
  const gz = sum(overviewJs, 'gzip');
  console.log(
    `the Overview loads ${overviewJs.length} scripts: ${kb(sum(overviewJs, 'raw'))} raw, ${kb(gz)} gzip (goal <= 250 KB gzip: ${gz <= 250 * 1024 ? 'met' : 'NOT met'})`,
  );
} finally {
  await browser?.close();
  await service.stop();
}
