// The guest's survey page under load: ~10 s of first-step page views (new guests, no cookie) from concurrent
// connections, then ~10 s of whole 3-step responses (metrics, nps, text; the survey's items step is skipped, the
// links naming no order) by concurrent guests, each as a browser does
// it: GET the page, then POST each step and GET where the 303 points, thank-you page included (7 requests).
// Goal (issue 12): >= 1,000 page views/s with p99 < 50 ms, and >= 300 completed responses/s, on a 2-core machine.
//   node bench/survey-page.js     env: CONNECTIONS (default 32), VIEW_SECONDS (10), SUBMIT_SECONDS (10),
//   BRAND (1: the business has a display name, a brand colour and a logo, and the survey an items step, as issue 36's
//   pages show; 0: none of them, as builds before issue 36 can run)
// Loopback only, bounded in time: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
// Every guest comes from its own X-Forwarded-For address, trusted as one proxy's (TRUST_PROXY_HOPS=1): the page's
// limit (10 new responses / 10 min / address / survey) would otherwise stop the bench, as it should stop one address.
import pngjs from 'pngjs';
import { cpuPer, loadPhase, startService } from './lib/service.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const VIEW_SECONDS = Number(process.env.VIEW_SECONDS ?? 10);
const SUBMIT_SECONDS = Number(process.env.SUBMIT_SECONDS ?? 10);
const BRAND = process.env.BRAND !== '0';

const service = await startService('survey-page', { TRUST_PROXY_HOPS: '1' }, { limitSeconds: 180 + 3 * (VIEW_SECONDS + SUBMIT_SECONDS) });
const { base, stop } = service;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

try {
  const { accessToken, business } = await service.tenantToken(`surveys:write surveys:read metrics:write submissions:read${BRAND ? ' business:write' : ''}`);
  const gql = async (query, variables) => {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json();
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const b = business.id;
  const metric = async (name) =>
    (await gql(`mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }`, { b, n: name })).createMetric.id;
  const metrics = [await metric('Food'), await metric('Service')];
  const survey = (await gql(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Bench visit", status: active}) { id } }`, { b })).createSurvey.id;
  const step = async (input) =>
    (
      await gql(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
        b,
        s: survey,
        i: input,
      })
    ).createSurveyStep.id;
  const steps = [
    await step({ type: 'metrics', required: true, metrics: { metrics } }),
    await step({ type: 'nps', required: true }),
    await step({ type: 'text', content: { title: 'Anything else?' } }),
  ];
  if (BRAND) {
    // Rate what you ate (issue 36): these guests' links name no order, so the page skips it, as it must at no cost.
    await step({ type: 'items', position: 2, content: { scale: 'thumbs' } });
    // The business's face (issue 36): every page view shows its name and logo, in its colour.
    await gql(`mutation($b: ID!) { updateBusiness(id: $b, input: {displayName: "Bench Bistro", brandColor: "#14532D"}) { id } }`, { b });
    const logo = new pngjs.PNG({ width: 128, height: 128 });
    logo.data.fill(200);
    const put = await fetch(`${base}/v2/businesses/${b}/logo`, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', authorization: `Bearer ${accessToken}` },
      body: pngjs.PNG.sync.write(logo),
    });
    if (put.status !== 200) throw new Error(`logo: ${put.status} ${await put.text()}`);
  }
  const path = `/survey/${b}/${survey}`;
  let ip = 0;
  const address = () => `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`;

  // Phase 1: first-step page views by new guests.
  const views = (duration) =>
    loadPhase({
      url: `${base}${path}?ch=qr`,
      connections: CONNECTIONS,
      duration,
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': address() } }) }],
    });
  await views(2); // warm-up
  const viewCpu = service.cpu();
  const v = await views(VIEW_SECONDS);
  const viewCpuLine = cpuPer(viewCpu, service.cpu(), v['2xx'] || 1, 'view');
  const viewsPerSecond = v['2xx'] / (v.duration || 1);
  console.log(
    `first-step page views (${CONNECTIONS} connections, ${VIEW_SECONDS} s): ${viewsPerSecond.toFixed(0)}/s (${v['2xx']} ok, ${v.non2xx} non-2xx, ${v.errors} errors) ` +
      `latency p50 ${v.latency.p50} ms, p99 ${v.latency.p99} ms, max ${v.latency.max} ms; ${viewCpuLine}`,
  );

  // Phase 2: whole responses by concurrent guests.
  const guest = async (latencies) => {
    const headers = { 'x-forwarded-for': address() };
    let cookie = '';
    const send = async (url, init = {}) => {
      const started = performance.now();
      const res = await fetch(`${base}${url}`, { ...init, redirect: 'manual', headers: { ...headers, cookie, ...(init.headers ?? {}) } });
      const text = await res.text();
      latencies.push(performance.now() - started);
      const set = res.headers.getSetCookie()[0];
      if (set) cookie = set.split(';')[0];
      return { res, text };
    };
    const first = await send(`${path}?ch=qr`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(first.text)?.[1];
    const forms = [{ [`rating-${metrics[0]}`]: '4', [`rating-${metrics[1]}`]: '5' }, { value: '9' }, { value: 'Bench guest says hello' }];
    for (const [i, form] of forms.entries()) {
      const body = new URLSearchParams({ csrf, step: steps[i], ...form });
      const { res } = await send(`${path}?ch=qr`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      if (res.status !== 303) throw new Error(`step ${i}: ${res.status}`);
      await send(res.headers.get('location'));
    }
  };
  const submit = async (seconds) => {
    const latencies = [];
    let done = 0;
    let failed = 0;
    const until = Date.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until) {
          try {
            await guest(latencies);
            done++;
          } catch {
            failed++;
          }
        }
      }),
    );
    return { done, failed, seconds: (performance.now() - started) / 1000, latencies: latencies.sort((x, y) => x - y) };
  };
  await submit(2); // warm-up
  const submitCpu = service.cpu();
  const s = await submit(SUBMIT_SECONDS);
  const submitCpuLine = cpuPer(submitCpu, service.cpu(), s.done || 1, 'completed response');
  const perSecond = s.done / s.seconds;
  console.log(
    `3-step responses (${CONNECTIONS} guests at once, ${SUBMIT_SECONDS} s, 7 requests each): ${perSecond.toFixed(0)} completed/s (${s.done} ok, ${s.failed} failed) ` +
      `request latency p50 ${percentile(s.latencies, 50).toFixed(1)} ms, p99 ${percentile(s.latencies, 99).toFixed(1)} ms; ${submitCpuLine}`,
  );
  const counted = (
    await gql(`query($b: ID!, $s: ID!) { submissions(business: $b, survey: $s, where: {status: {eq: "completed"}}, pageSize: 1) { total } }`, { b, s: survey })
  ).submissions.total;
  console.log(`completed submissions stored: ${counted}`);
  const viewsMet = viewsPerSecond >= 1000 && v.latency.p99 < 50;
  console.log(`goal: >= 1000 page views/s with p99 < 50 ms -> ${viewsMet ? 'met' : 'NOT met'}; >= 300 completed/s -> ${perSecond >= 300 ? 'met' : 'NOT met'}`);
} finally {
  await stop();
}
