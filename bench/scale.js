// The capacity model, measured (issue 38): a small deployment on loopback, a PostgreSQL 15 primary and one streaming
// replica (pg_basebackup -R, under /tmp), Redis, three API processes (WORKERS=0) and one worker process
// (`npm run worker`), requests spread round-robin by this client across the three APIs.
//   0. Nothing to do for IDLE_SECONDS: what the deployment costs idle (CPU, statements per second).
//   1. One kind of work at a time, KIND_SECONDS each: CPU per unit of each kind for the API processes, the worker and
//      each PostgreSQL (from /proc), the primary's WAL and growth per unit, and where its reads ran (pg_stat_statements on both servers). Kinds: orders
//      through the custom order webhook, guest survey page views, dashboard lists and analytics over GraphQL, partner
//      REST pages, and webhook deliveries to a local receiver (orders of a business with WEBHOOKS webhooks; net of the
//      orders' own cost).
//   2. Everything at once for SCALE_SECONDS, one API process SIGKILLed halfway: throughput and p99 per kind, reads on
//      the replica, errors beyond the killed process's in-flight requests (those are retried elsewhere, as an
//      ordering system retries, and counted apart), then every accepted order is looked up in the database (exactly
//      once) and every expected delivery at the receiver (exactly once).
//   3. From the costs measured alone (CPU, WAL and database growth per unit): the cores a chain of 10 to 10,000
//      restaurants keeps busy at its busiest hour, on CHAIN's assumptions (docs/scaling.md states them).
// Prints a table and writes the figures as JSON (SCALE_OUT, default /tmp/bench-scale-<time>.json). Exits 1 on any
// error, lost or duplicated order or delivery.
//   node bench/scale.js    env: SCALE_SECONDS (60), KIND_SECONDS (8), WARM_SECONDS (3), IDLE_SECONDS (5), WEBHOOKS (2),
//                          SEED_SUBMISSIONS (20000), SOLO_CONNECTIONS (6), SCALE_CONNECTIONS
//                          ("order=4,pageView=4,dashboardList=1,analytics=2,partnerPage=1"), REDIS_URL
//                          (redis://127.0.0.1:6379), REPLICA_MAX_LAG (passed on when set), PG_BIN, SCALE_OUT
// Loopback only and bounded in time: every process and both PostgreSQL servers are stopped at the end, also on a
// failure, past the time limit, or on Ctrl-C.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { adminCli, freePort, nodeBin, root, sleep, tenants } from './lib/service.js';
import { startReceiver } from './lib/receiver.js';
import { startPrimaryAndReplica } from './lib/pg-cluster.js';
import { fleet as startFleet } from './lib/fleet.js';
import { seedSurveyPage, SURVEYS } from './lib/seed.js';
import { benchOrder } from './lib/orders.js';
import { THREE_LEVEL_QUERY } from '../test/helpers/queries.js';

const SCALE_SECONDS = Number(process.env.SCALE_SECONDS ?? 60);
const KIND_SECONDS = Number(process.env.KIND_SECONDS ?? 8);
const WARM_SECONDS = Number(process.env.WARM_SECONDS ?? 3);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 5);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 2);
const SEED_SUBMISSIONS = Number(process.env.SEED_SUBMISSIONS ?? 20_000);
const SOLO_CONNECTIONS = Number(process.env.SOLO_CONNECTIONS ?? 6);
const MIXED_CONNECTIONS = {
  order: 4,
  pageView: 4,
  dashboardList: 1,
  analytics: 2,
  partnerPage: 1,
  ...Object.fromEntries(
    (process.env.SCALE_CONNECTIONS ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('='))
      .map(([k, v]) => [k.trim(), Number(v)]),
  ),
};
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const APIS = 3;
const DRAIN_SECONDS = 60;
const started = new Date();
const OUT = process.env.SCALE_OUT ?? `/tmp/bench-scale-${started.toISOString().replace(/[:.]/g, '-')}.json`;
const LIMIT_SECONDS = 300 + IDLE_SECONDS + 8 * KIND_SECONDS + 2 * SCALE_SECONDS;

const GROUPS = ['api', 'worker', 'primary', 'replica'];
/**
 * A chain's busiest hour, per restaurant: what the sizing table multiplies the measured costs by (docs/scaling.md
 * states them). Dashboard reads are half lists, half analytics.
 */
const CHAIN = {
  restaurants: [10, 100, 1_000, 10_000],
  ordersPerDay: 400,
  busiestHourShare: 0.15,
  pageViewsPerOrder: 0.6,
  deliveriesPerOrder: 2,
  dashboardReadsPerMinute: 2,
  partnerPagesPerMinute: 1,
};

/** The kinds of work, in the order of the solo phases; `unit` is what CPU is counted per. */
const KINDS = {
  order: { unit: 'order', title: 'orders (custom webhook, 3 items)' },
  pageView: { unit: 'page view', title: 'guest survey page views' },
  dashboardList: { unit: 'dashboard read', title: `dashboard list (GraphQL, ${SURVEYS} surveys x 5 steps x 3 metrics)` },
  analytics: { unit: 'dashboard read', title: 'dashboard analytics (GraphQL, 30 days by location)' },
  partnerPage: { unit: 'REST page', title: `partner REST page (${SURVEYS} surveys, expanded)` },
  delivery: { unit: 'delivery', title: `webhook deliveries (${WEBHOOKS} webhooks per order)` },
};

// Everything started is stopped once, whatever ends the run: `cleanups` run synchronously from the 'exit' handler.
const cleanups = [];
let cleaned = false;
const cleanUp = () => {
  if (cleaned) return;
  cleaned = true;
  for (const fn of cleanups.reverse()) {
    try {
      fn();
    } catch {
      /* best effort: the rest still runs */
    }
  }
};
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`bench/scale: ${signal}, stopping everything`);
    process.exit(130);
  });
}
setTimeout(() => {
  console.error(`bench/scale: took more than ${LIMIT_SECONDS} s, stopping everything`);
  process.exit(1);
}, LIMIT_SECONDS * 1000).unref();

const progress = (message) => process.stderr.write(`bench/scale: ${message}\n`);
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
const round = (n, digits = 2) => (n == null || !Number.isFinite(n) ? null : Math.round(n * 10 ** digits) / 10 ** digits);

// --- the deployment -------------------------------------------------------------------------------------------------
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-logs-'));
let keepLogs = false;
cleanups.push(() => !keepLogs && fs.rmSync(logDir, { recursive: true, force: true }));

progress('starting PostgreSQL: a primary and a streaming replica');
const cluster = await startPrimaryAndReplica({ name: 'scale' });
cleanups.push(() => cluster.stop());

// The receiver of webhook deliveries: notes each (webhook, order) and each delivery id, with when it arrived.
const receipts = { byOrder: new Map(), byDelivery: new Map(), arrivals: [], unreadable: 0 };
const receiver = await startReceiver((body, req) => {
  const at = Date.now();
  try {
    const event = JSON.parse(body);
    const order = event.data.object;
    const key = `${req.url}|${orderKey(event.business, order.externalOrderId, order.externalLocationId)}`;
    const first = !receipts.byOrder.has(key);
    receipts.byOrder.set(key, (receipts.byOrder.get(key) ?? 0) + 1);
    const id = req.headers['webhook-id'];
    receipts.byDelivery.set(id, (receipts.byDelivery.get(id) ?? 0) + 1);
    if (first) receipts.arrivals.push({ at, latency: at - event.timestamp });
  } catch {
    receipts.unreadable++;
  }
});
cleanups.push(() => receiver.close());

progress('building the service (dist/)');
execFileSync(nodeBin, ['scripts/build.js'], { cwd: root, stdio: 'inherit' });

const redisPrefix = `bench-scale-${process.pid}-${Date.now().toString(36)}:`;
const publicPort = await freePort(); // the balancer's address every process names as the tokens' issuer
const sharedEnv = {
  NODE_ENV: 'production',
  DATABASE_URL: cluster.primaryUrl,
  DATABASE_REPLICA_URLS: cluster.replicaUrl,
  ...(process.env.REPLICA_MAX_LAG ? { REPLICA_MAX_LAG: process.env.REPLICA_MAX_LAG } : {}),
  REDIS_URL,
  REDIS_KEY_PREFIX: redisPrefix,
  PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
  // The guests come from their own X-Forwarded-For addresses, as through one load balancer.
  TRUST_PROXY_HOPS: '1',
  LOG_LEVEL: 'warn',
  // A bench drives a few tenants far past their quotas: the limiters still count every request (in Redis) without
  // refusing any; the receiver is local and takes deliveries as fast as they come.
  RATE_LIMIT_API_PER_SECOND: '1000000',
  RATE_LIMIT_WEBHOOK_PER_SECOND: '1000000',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RATE_LIMIT: '100000',
};
const fleet = startFleet({ logDir, env: sharedEnv });
cleanups.push(() => fleet.killAllSync());

let failed = false;
try {
  // The first API process runs the migrations; the others start once the schema is there.
  progress('starting 3 API processes and 1 worker process');
  const apis = [await fleet.api('api-1', { WORKERS: '0' })];
  apis.push(...(await Promise.all([fleet.api('api-2', { WORKERS: '0' }), fleet.api('api-3', { WORKERS: '0' })])));
  const worker = await fleet.worker('worker', { WORKERS: '64' });

  // --- tenants and data -------------------------------------------------------------------------------------------
  progress('seeding');
  const admin = adminCli({ ...process.env, ...sharedEnv });
  const demo = async () => {
    const out = admin('demo');
    // The CLI blocked this process: let it see the kept-alive sockets the services closed meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    return out.data ?? out;
  };
  const token = async (credential, scope) => {
    const res = await fetch(`${apis[0].base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials', clientId: credential.clientId, clientSecret: credential.clientSecret, scope }),
    });
    const { accessToken } = await res.json();
    if (!accessToken) throw new Error(`no token: ${res.status}`);
    return accessToken;
  };
  // The shop: orders without webhooks, guest page views of its survey, analytics over its submissions.
  const shop = await demo();
  const shopToken = await token(shop.credential, 'analytics:read locations:write');
  // The integrated shop: orders whose order.created events go to WEBHOOKS webhooks on the local receiver.
  const hooked = await demo();
  const hookedToken = await token(hooked.credential, 'webhooks:write orders:read');
  for (let i = 0; i < WEBHOOKS; i++) {
    const res = await fetch(`${apis[0].base}/v2/businesses/${hooked.business.id}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hookedToken}` },
      body: JSON.stringify({ url: receiver.url(`/hook-${i}`), events: ['order.created'] }),
    });
    if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${await res.text()}`);
  }
  // The dashboard's and partner's tenant: the surveys page of bench/graphql-list and bench/rest-vs-graphql.
  const catalogue = await seedSurveyPage({ base: apis[0].base, ...tenants(apis[0].base, admin) });
  await seedSubmissions(shop, shopToken);

  // --- the kinds of work ------------------------------------------------------------------------------------------
  const run = Date.now().toString(36);
  let orderSerial = 0;
  const accepted = new Map(); // orderKey -> business
  const orderBody = (n) => benchOrder(`scale-${run}`, n);
  const postOrder = (business) => async (api, attempt) => {
    const n = attempt.n ?? (attempt.n = orderSerial++);
    const order = orderBody(n);
    const res = await fetch(`${api.base}/webhooks/custom/${business.business.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${business.customIntegration.secret}` },
      body: JSON.stringify(order),
    });
    await res.arrayBuffer();
    const ok = res.status === 200 || res.status === 201;
    if (ok) accepted.set(orderKey(business.business.id, order.externalOrderId, order.externalLocationId), business.business.id);
    return ok || `${res.status}`;
  };
  let address = 0;
  const pagePath = `/survey/${shop.business.id}/${shop.survey.id}?ch=qr`;
  const pageView = async (api) => {
    const a = address++;
    const res = await fetch(`${api.base}${pagePath}`, { headers: { 'x-forwarded-for': `10.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}` } });
    const text = await res.text();
    return (res.status === 200 && text.includes('<form')) || `${res.status}`;
  };
  const graphql = (accessToken, query, variables) => {
    const body = JSON.stringify({ query, variables });
    return async (api) => {
      const res = await fetch(`${api.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body,
      });
      const text = await res.text();
      return (res.status === 200 && !text.includes('"errors"')) || `${res.status} ${text.slice(0, 200)}`;
    };
  };
  const DAY = 86_400_000;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const analyticsQuery = `query($b: ID!, $from: Timestamp!, $to: Timestamp!) {
    analyticsMetrics(business: $b, from: $from, to: $to, interval: day, groupBy: [location]) { location period count mean csat }
  }`;
  const restPath = `/v2/businesses/${catalogue.business.id}/surveys?pageSize=${SURVEYS}&expand=steps.metrics.metrics`;
  const partnerPage = async (api) => {
    const res = await fetch(`${api.base}${restPath}`, { headers: { authorization: `Bearer ${catalogue.accessToken}` } });
    const text = await res.text();
    return (res.status === 200 && text.startsWith('{"object":"list"')) || `${res.status} ${text.slice(0, 200)}`;
  };
  const senders = {
    order: postOrder(shop),
    hookedOrder: postOrder(hooked),
    // In the mixed load every other order is the integrated shop's: its deliveries run beside everything else.
    mixedOrder: (api, attempt) => ((attempt.n ?? orderSerial) % 2 ? senders.hookedOrder : senders.order)(api, attempt),
    pageView,
    dashboardList: graphql(catalogue.accessToken, THREE_LEVEL_QUERY, { b: catalogue.business.id, s: SURVEYS }),
    analytics: graphql(shopToken, analyticsQuery, { b: shop.business.id, from: today - 29 * DAY, to: today + DAY }),
    partnerPage,
  };

  // --- the client: closed loops per kind, round-robin over the live API processes ------------------------------------
  const live = [...apis];
  let turn = 0;
  const pick = (except) => {
    const choices = except ? live.filter((a) => a !== except) : live;
    return choices[turn++ % choices.length];
  };
  const kill = { member: null, at: 0 };
  const newStats = () => ({ ok: 0, errors: 0, errorSamples: [], inFlightAtKill: 0, retriedElsewhere: 0, latencies: [] });

  /** One request of a kind; a request the killed process had in flight is retried on another (orders keep their number). */
  async function once(send, stats) {
    const attempt = {};
    for (let tries = 0; ; tries++) {
      const api = pick(tries ? kill.member : undefined);
      const begun = performance.now();
      const sentAt = Date.now();
      let outcome;
      try {
        outcome = await send(api, attempt);
      } catch (err) {
        if (api === kill.member && sentAt <= kill.at && tries === 0) {
          stats.inFlightAtKill++;
          stats.retriedElsewhere++;
          continue;
        }
        outcome = `${err.cause?.code ?? err.name}: ${err.message}`;
      }
      if (outcome === true) {
        stats.ok++;
        stats.latencies.push(performance.now() - begun);
      } else {
        stats.errors++;
        if (stats.errorSamples.length < 5) stats.errorSamples.push(`${api.name}: ${outcome}`);
      }
      return;
    }
  }
  const drive = (send, stats, connections, untilMs) =>
    Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < untilMs) await once(send, stats);
      }),
    );

  // --- measuring ----------------------------------------------------------------------------------------------------
  const reading = () => {
    const pgCpu = cluster.cpu();
    const client = process.cpuUsage();
    return {
      at: performance.now(),
      api: apis.reduce((sum, a) => sum + a.cpu(), 0),
      worker: worker.cpu(),
      primary: pgCpu.primary,
      replica: pgCpu.replica,
      client: (client.user + client.system) / 1e6,
    };
  };
  const spent = (before, after) => ({
    ...Object.fromEntries([...GROUPS, 'client'].map((g) => [g, after[g] - before[g]])),
    seconds: (after.at - before.at) / 1000,
  });
  /** The primary's WAL position and database size; with `since`, the bytes of WAL and growth from then. */
  const written = (since) =>
    onServer(cluster.primaryUrl, async (c) => {
      const { rows } = await c.query('select pg_current_wal_lsn()::text as lsn, pg_database_size(current_database())::float8 as size');
      if (!since) return rows[0];
      const wal = (await c.query('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::float8 as bytes', [rows[0].lsn, since.lsn])).rows[0].bytes;
      return { wal, growth: rows[0].size - since.size };
    });
  const statements = async () => ({ primary: await statementsOn(cluster.primaryUrl), replica: await statementsOn(cluster.replicaUrl) });
  const resetStatements = async () => {
    for (const url of [cluster.primaryUrl, cluster.replicaUrl]) await onServer(url, (c) => c.query('select pg_stat_statements_reset()'));
  };
  // The service's own count of lag-tolerant reads by target (db_reads_total), per process: a killed one's last scrape.
  const serviceReads = new Map();
  const scrapeReads = (members) =>
    Promise.all(
      members.map(async (member) => {
        const text = await fetch(`${member.base}/metrics`)
          .then((r) => r.text())
          .catch(() => '');
        const counts = {};
        for (const m of text.matchAll(/^db_reads_total\{[^}]*target="(\w+)"[^}]*\} (\S+)$/gm)) counts[m[1]] = (counts[m[1]] ?? 0) + Number(m[2]);
        serviceReads.set(member, counts);
      }),
    );
  const readsByTarget = () => {
    const total = {};
    for (const counts of serviceReads.values()) for (const [target, n] of Object.entries(counts)) total[target] = (total[target] ?? 0) + n;
    return total;
  };
  const readsSince = (before) => {
    const now = readsByTarget();
    return Object.keys(now).length ? Object.fromEntries(Object.keys(now).map((t) => [t, now[t] - (before[t] ?? 0)])) : null;
  };
  const expectedDeliveries = () => [...accepted.values()].filter((b) => b === hooked.business.id).length * WEBHOOKS;
  async function drain() {
    const until = Date.now() + DRAIN_SECONDS * 1000;
    while (receipts.byOrder.size < expectedDeliveries() && Date.now() < until) await sleep(50);
  }

  progress(`warming up (${WARM_SECONDS} s of every kind)`);
  {
    const until = Date.now() + WARM_SECONDS * 1000;
    const warm = newStats();
    await Promise.all(['mixedOrder', 'pageView', 'dashboardList', 'analytics', 'partnerPage'].map((k) => drive(senders[k], warm, 2, until)));
    await drain();
    if (warm.errors) throw new Error(`errors while warming up: ${warm.errorSamples.join('; ')}`);
  }

  // 0. Nothing to do.
  progress(`idle (${IDLE_SECONDS} s)`);
  await sleep(1000); // the warm-up's last writes settle
  await resetStatements();
  const idleBefore = reading();
  await sleep(IDLE_SECONDS * 1000);
  const idleCpu = spent(idleBefore, reading());
  const idleStatements = await statements();
  const calls = (rows) => rows.filter((r) => !/pg_stat_statements/i.test(r.query)).reduce((n, r) => n + r.calls, 0);
  const idle = {
    coresBusy: Object.fromEntries(GROUPS.map((g) => [g, idleCpu[g] / idleCpu.seconds])),
    statementsPerSecond: {
      primary: round(calls(idleStatements.primary) / idleCpu.seconds, 1),
      replica: round(calls(idleStatements.replica) / idleCpu.seconds, 1),
    },
  };

  // 1. One kind at a time.
  const solo = {};
  for (const kind of Object.keys(KINDS)) {
    progress(`alone: ${KINDS[kind].title} (${KIND_SECONDS} s, ${SOLO_CONNECTIONS} connections)`);
    await resetStatements();
    await scrapeReads(live);
    const readsBefore = readsByTarget();
    const stats = newStats();
    const arrivalsBefore = receipts.arrivals.length;
    const writtenBefore = await written();
    const before = reading();
    const until = Date.now() + KIND_SECONDS * 1000;
    await drive(senders[kind === 'delivery' ? 'hookedOrder' : kind], stats, SOLO_CONNECTIONS, until);
    const sentFor = (performance.now() - before.at) / 1000;
    // What the work leaves behind (the deliveries, the workers' share) lands just after the requests.
    if (kind === 'delivery') await drain();
    else await sleep(500);
    const cpu = spent(before, reading());
    const bytes = await written(writtenBefore);
    // Deliveries are counted as they arrive, over the phase and its drain; requests over the time they were sent.
    const arrived = receipts.arrivals.slice(arrivalsBefore);
    if (kind === 'delivery') stats.latencies = arrived.map((a) => a.latency);
    const units = kind === 'delivery' ? arrived.length : stats.ok;
    const seconds = kind === 'delivery' ? cpu.seconds : sentFor;
    await scrapeReads(live);
    const reads = { ...readShare(await statements()), service: readsSince(readsBefore) };
    solo[kind] = { stats, units, orders: kind === 'delivery' ? stats.ok : undefined, seconds, cpu, bytes, reads };
    if (stats.errors) failed = true;
  }
  // CPU per unit in ms, and bytes of WAL and of database growth. A delivery's own: its phase's less what its orders
  // cost in the order phase.
  const perUnit = {};
  const bytesPerUnit = {};
  for (const kind of Object.keys(KINDS)) {
    const { cpu, units, orders, bytes } = solo[kind];
    bytesPerUnit[kind] = Object.fromEntries(
      ['wal', 'growth'].map((b) => [b, units ? Math.max(0, (bytes[b] - (kind === 'delivery' ? orders * bytesPerUnit.order[b] : 0)) / units) : null]),
    );
    perUnit[kind] = Object.fromEntries(
      GROUPS.map((g) => {
        const own = kind === 'delivery' ? cpu[g] - orders * (perUnit.order[g] / 1000) : cpu[g];
        return [g, units ? Math.max(0, (own * 1000) / units) : null];
      }),
    );
  }

  // 2. Everything at once; one API process killed halfway.
  const victim = apis[APIS - 1];
  progress(`mixed: every kind at once for ${SCALE_SECONDS} s, ${victim.name} SIGKILLed at ${SCALE_SECONDS / 2} s`);
  await resetStatements();
  await scrapeReads(live);
  const mixedReadsBefore = readsByTarget();
  const mixed = Object.fromEntries(Object.keys(MIXED_CONNECTIONS).map((k) => [k, newStats()]));
  const arrivalsBefore = receipts.arrivals.length;
  const mixedBefore = reading();
  const mixedStart = Date.now();
  const until = mixedStart + SCALE_SECONDS * 1000;
  const killer = setTimeout(
    async () => {
      await scrapeReads([victim]);
      victim.cpu(); // its last CPU reading: /proc forgets it once it is gone
      live.splice(live.indexOf(victim), 1); // the balancer stops sending to it...
      kill.member = victim;
      kill.at = Date.now();
      victim.child.kill('SIGKILL'); // ...as it dies: what it had in flight fails
    },
    (SCALE_SECONDS * 1000) / 2,
  );
  await Promise.all(Object.entries(MIXED_CONNECTIONS).map(([k, n]) => drive(senders[k === 'order' ? 'mixedOrder' : k], mixed[k], n, until)));
  clearTimeout(killer);
  const mixedSent = (Date.now() - mixedStart) / 1000;
  await drain();
  const mixedCpu = spent(mixedBefore, reading());
  await scrapeReads(live);
  const mixedReads = { ...readShare(await statements()), service: readsSince(mixedReadsBefore) };
  const mixedArrivals = receipts.arrivals.slice(arrivalsBefore);
  const metricsLines = (
    await Promise.all(
      live.map((a) =>
        fetch(`${a.base}/metrics`)
          .then((r) => r.text())
          .catch(() => ''),
      ),
    )
  )
    .flatMap((text) => text.split('\n'))
    .filter((line) => /^db_replica/.test(line));

  // 3. Nothing lost, nothing twice.
  const integrity = await checkIntegrity();
  const errors = Object.values(mixed).reduce((n, s) => n + s.errors, 0) + Object.values(solo).reduce((n, s) => n + s.stats.errors, 0);
  const inFlightAtKill = Object.values(mixed).reduce((n, s) => n + s.inFlightAtKill, 0);
  if (errors || integrity.orders.lost || integrity.orders.duplicated || integrity.deliveries.lost || integrity.deliveries.duplicated) failed = true;

  // --- the report ---------------------------------------------------------------------------------------------------
  const latencySummary = (latencies) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    return { p50: round(pct(sorted, 50), 1), p99: round(pct(sorted, 99), 1), max: round(sorted.at(-1), 1) };
  };
  const mixedKinds = {};
  for (const [k, s] of Object.entries(mixed)) {
    mixedKinds[k] = {
      perSecond: round(s.ok / mixedSent, 1),
      ok: s.ok,
      latencyMs: latencySummary(s.latencies),
      errors: s.errors,
      errorSamples: s.errorSamples,
      inFlightAtKill: s.inFlightAtKill,
      retriedElsewhere: s.retriedElsewhere,
    };
  }
  mixedKinds.delivery = {
    perSecond: round(mixedArrivals.length / mixedCpu.seconds, 1),
    ok: mixedArrivals.length,
    latencyMs: latencySummary(mixedArrivals.map((a) => a.latency)),
    note: 'event commit to first arrival at the receiver',
  };
  const mixedUnits = { ...Object.fromEntries(Object.entries(mixed).map(([k, s]) => [k, s.ok])), delivery: mixedArrivals.length };
  const predicted = Object.fromEntries(GROUPS.map((g) => [g, Object.entries(mixedUnits).reduce((sum, [k, n]) => sum + (n * (perUnit[k][g] ?? 0)) / 1000, 0)]));
  const report = {
    bench: 'scale',
    startedAt: started.toISOString(),
    machine: { cores: os.cpus().length, model: os.cpus()[0]?.model, loadAverageAtEnd: os.loadavg().map((n) => round(n, 1)) },
    setup: {
      apiProcesses: APIS,
      workerProcesses: 1,
      postgres: 'primary + 1 streaming replica (pg_basebackup -R), PostgreSQL 15, fsync on',
      redis: REDIS_URL,
      replicaEnv: { DATABASE_REPLICA_URLS: 'the replica', REPLICA_MAX_LAG: process.env.REPLICA_MAX_LAG ?? '(service default)' },
      seconds: { mixed: SCALE_SECONDS, perKind: KIND_SECONDS, warmUp: WARM_SECONDS, idle: IDLE_SECONDS },
      connections: { solo: SOLO_CONNECTIONS, mixed: MIXED_CONNECTIONS },
      webhooksPerIntegratedOrder: WEBHOOKS,
      seededSubmissions: SEED_SUBMISSIONS,
    },
    idle: { coresBusy: Object.fromEntries(GROUPS.map((g) => [g, round(idle.coresBusy[g], 3)])), statementsPerSecond: idle.statementsPerSecond },
    perKind: Object.fromEntries(
      Object.keys(KINDS).map((k) => {
        const s = solo[k];
        const ms = perUnit[k];
        const total = GROUPS.reduce((sum, g) => sum + (ms[g] ?? 0), 0);
        return [
          k,
          {
            title: KINDS[k].title,
            unit: KINDS[k].unit,
            alone: {
              perSecond: round(s.units / s.seconds, 1),
              units: s.units,
              latencyMs: latencySummary(s.stats.latencies),
              errors: s.stats.errors,
              readsOnReplica: s.reads,
            },
            bytesPerUnit: { wal: Math.round(bytesPerUnit[k].wal ?? 0), databaseGrowth: Math.round(bytesPerUnit[k].growth ?? 0) },
            cpuMsPerUnit: { ...Object.fromEntries(GROUPS.map((g) => [g, round(ms[g], 3)])), total: round(total, 3) },
            perCoreSecond: {
              api: ms.api ? Math.round(1000 / ms.api) : null,
              worker: ms.worker >= 0.001 ? Math.round(1000 / ms.worker) : null,
              postgres: ms.primary + ms.replica ? Math.round(1000 / (ms.primary + ms.replica)) : null,
              wholeMachineCore: total ? Math.round(1000 / total) : null,
            },
            ...(k === 'delivery' ? { note: "net of its orders' own cost (the order phase's)" } : {}),
          },
        ];
      }),
    ),
    mixed: {
      seconds: round(mixedSent, 1),
      killed: { process: victim.name, atSecond: round((kill.at - mixedStart) / 1000, 1), signal: victim.child.signalCode },
      kinds: mixedKinds,
      errorsBeyondInFlightAtKill: errors,
      inFlightAtKill,
      readsOnReplica: mixedReads,
      replicaMetricLines: metricsLines.slice(0, 20),
      cpuSeconds: Object.fromEntries([...GROUPS, 'client'].map((g) => [g, round(mixedCpu[g], 2)])),
      cpuPredictedFromKinds: Object.fromEntries(GROUPS.map((g) => [g, round(predicted[g], 2)])),
      coresBusy: Object.fromEntries([...GROUPS, 'client'].map((g) => [g, round(mixedCpu[g] / mixedCpu.seconds, 2)])),
    },
    chain: { assumptions: CHAIN, atBusiestHour: chainSizing(perUnit, bytesPerUnit) },
    integrity,
    ok: !failed,
  };
  fs.writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
  const markdownOut = OUT.replace(/(\.json)?$/, '.md');
  fs.writeFileSync(markdownOut, markdownTables(report));
  printTable(report);
  console.log(`\nJSON: ${OUT}\nMarkdown tables (docs/scaling.md's): ${markdownOut}`);
  if (failed) {
    keepLogs = true;
    console.log(`FAILED (process logs kept in ${logDir})`);
  }

  // --- helpers that need the tenants ------------------------------------------------------------------------------
  async function seedSubmissions(business, accessToken) {
    // Five locations, 90 days of completed answers to the metrics step, written with SQL (the analytics triggers on,
    // so the rollups are the service's own): what a dashboard reads is a chain's, not an empty business's.
    const locations = [business.location.id];
    for (let i = 1; i < 5; i++) {
      const res = await fetch(`${apis[0].base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({
          query: 'mutation($b: ID!, $n: String!) { createLocation(business: $b, input: {name: $n}) { id } }',
          variables: { b: business.business.id, n: `Branch ${i}` },
        }),
      });
      const body = await res.json();
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      locations.push(body.data.createLocation.id);
    }
    await onServer(cluster.primaryUrl, async (c) => {
      const { rows } = await c.query(`select id from survey_step where survey_id = $1 and type = 'metrics'`, [business.survey.id]);
      const metrics = business.survey.metrics.map((m) => m.id);
      await c.query(
        `insert into submission (id, created_at, updated_at, completed_at, business_id, survey_id, answers, metadata, location_id, status, source, channel)
         select 'sub_S' || lpad(g::text, 25, '0'), ts, ts, ts, $1, $2,
                jsonb_build_array(jsonb_build_object('step', $3::text, 'ratings', jsonb_build_object(
                  $4::text, 1 + abs(hashint4(g * 3)) % 5, $5::text, 1 + abs(hashint4(g * 3 + 1)) % 5, $6::text, 1 + abs(hashint4(g * 3 + 2)) % 5))),
                '{}', ($7::text[])[1 + g % 5], 'completed', 'page', 'qr'
           from (select g, now() - (g % 90) * interval '1 day' - (abs(hashint4(g)) % 3600) * interval '1 second' as ts
                   from generate_series(1, $8::int) g) x`,
        [business.business.id, business.survey.id, rows[0].id, ...metrics, locations, SEED_SUBMISSIONS],
      );
      // What autovacuum does within a minute of a bulk write (hint bits, the visibility map, statistics), replayed on
      // the replica too: without it the first reads of fresh rows pay for it, which no steady dashboard does.
      await c.query('vacuum analyze');
    });
  }

  async function checkIntegrity() {
    const stored = await onServer(cluster.primaryUrl, (c) =>
      c.query(
        `select business_id, external_order_id, external_location_id, count(*)::int as n from customer_order
          where external_order_id like $1 group by 1, 2, 3`,
        [`scale-${run}-%`],
      ),
    );
    const inDb = new Map(stored.rows.map((r) => [orderKey(r.business_id, r.external_order_id, r.external_location_id), r.n]));
    const lost = [...accepted.keys()].filter((k) => !inDb.has(k));
    const duplicated = [...inDb].filter(([, n]) => n > 1).map(([k]) => k);
    const unacknowledged = [...inDb.keys()].filter((k) => !accepted.has(k));
    const expected = [...accepted].filter(([, b]) => b === hooked.business.id).flatMap(([k]) => Array.from({ length: WEBHOOKS }, (_, i) => `/hook-${i}|${k}`));
    const missing = expected.filter((k) => !receipts.byOrder.has(k));
    const twice = [...receipts.byOrder].filter(([, n]) => n > 1).map(([k]) => k);
    const sameIdTwice = [...receipts.byDelivery.values()].filter((n) => n > 1).length;
    const unexpected = [...receipts.byOrder.keys()].filter((k) => !expected.includes(k));
    return {
      orders: {
        accepted: accepted.size,
        stored: inDb.size,
        lost: lost.length,
        duplicated: duplicated.length,
        storedWithoutAnswer: unacknowledged.length,
        samples: [...lost, ...duplicated].slice(0, 5),
      },
      deliveries: {
        expected: expected.length,
        received: receipts.byOrder.size,
        lost: missing.length,
        duplicated: twice.length + sameIdTwice,
        unexpected: unexpected.length,
        unreadable: receipts.unreadable,
        samples: [...missing, ...twice].slice(0, 5),
      },
    };
  }
} catch (err) {
  failed = true;
  keepLogs = true;
  console.error(err);
  console.error(`process logs kept in ${logDir}`);
} finally {
  progress('stopping');
  await fleet.stopAll();
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${redisPrefix}*`, count: 500 })) if (keys.length) await redis.del(...keys);
  } catch {
    /* Redis gone: its keys expire on their own */
  }
  redis.disconnect();
  cleanUp();
}
process.exit(failed ? 1 : 0);

// --- plain helpers ----------------------------------------------------------------------------------------------------
/** Cores busy at a chain's busiest hour, and the WAL and database growth of a day, from the costs measured alone. */
function chainSizing(perUnit, bytesPerUnit) {
  const orders = (CHAIN.ordersPerDay * CHAIN.busiestHourShare) / 3600; // per restaurant per second
  const perSecond = {
    order: orders,
    pageView: orders * CHAIN.pageViewsPerOrder,
    dashboardList: CHAIN.dashboardReadsPerMinute / 2 / 60,
    analytics: CHAIN.dashboardReadsPerMinute / 2 / 60,
    partnerPage: CHAIN.partnerPagesPerMinute / 60,
    delivery: orders * CHAIN.deliveriesPerOrder,
  };
  const perDay = { order: CHAIN.ordersPerDay, delivery: CHAIN.ordersPerDay * CHAIN.deliveriesPerOrder };
  const gigabytes = (n, b) => round((n * Object.entries(perDay).reduce((sum, [k, count]) => sum + count * (bytesPerUnit[k][b] ?? 0), 0)) / 1e9, 2);
  return CHAIN.restaurants.map((n) => ({
    restaurants: n,
    ordersPerDay: n * CHAIN.ordersPerDay,
    peakOrdersPerSecond: round(n * orders, 1),
    coresAtPeak: Object.fromEntries(
      GROUPS.map((g) => [g, round((n * Object.entries(perSecond).reduce((sum, [k, r]) => sum + r * (perUnit[k][g] ?? 0), 0)) / 1000, 2)]),
    ),
    walGBPerDay: gigabytes(n, 'wal'),
    databaseGrowthGBPerDay: gigabytes(n, 'growth'),
  }));
}

function orderKey(business, externalOrderId, externalLocationId) {
  return `${business}|${externalOrderId}|${externalLocationId ?? ''}`;
}

async function onServer(url, fn) {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Statement counts since the last reset, read from pg_stat_statements on one server (this database's only). */
function statementsOn(url) {
  return onServer(url, async (c) => {
    const { rows } = await c.query(
      `select query, calls::float8 as calls from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
    );
    return rows;
  });
}

/** A read: a SELECT (or WITH ... SELECT) that locks and writes nothing; the bench's own statements left out. */
function isRead(query) {
  const q = query.replace(/^\s*(--[^\n]*\n\s*)*/, '');
  if (!/^(select|with)\b/i.test(q) || /pg_stat_statements/i.test(q)) return false;
  return !/\bfor\s+(no\s+key\s+)?update\b|\bfor\s+(key\s+)?share\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+"?\w+"?(\s+(as\s+)?\w+)?\s+set\b|pg_notify|nextval|pg_advisory/i.test(
    q,
  );
}

/** Reads on each server and the replica's share of them, with the primary's most frequent reads (what stayed there). */
function readShare({ primary, replica }) {
  const reads = (rows) => rows.filter((r) => isRead(r.query));
  const count = (rows) => reads(rows).reduce((n, r) => n + r.calls, 0);
  const onPrimary = count(primary);
  const onReplica = count(replica);
  const total = onPrimary + onReplica;
  return {
    primary: onPrimary,
    replica: onReplica,
    replicaShare: total ? round(onReplica / total, 3) : null,
    otherStatementsOnPrimary: primary.filter((r) => !isRead(r.query) && !/pg_stat_statements/i.test(r.query)).reduce((n, r) => n + r.calls, 0),
    topPrimaryReads: reads(primary)
      .sort((a, b) => b.calls - a.calls)
      .slice(0, 5)
      .map((r) => ({ calls: r.calls, query: r.query.replace(/\s+/g, ' ').slice(0, 140) })),
  };
}

/** The tables docs/scaling.md quotes, in Markdown, to paste there after a run on a quiet machine. */
function markdownTables(report) {
  const table = (header, rows) =>
    [
      `| ${header.join(' | ')} |`,
      `|${header.map((_, i) => (i ? '---:' : '---')).join('|')}|`,
      ...rows.map((r) => `| ${r.map((c) => c ?? '-').join(' | ')} |`),
    ].join('\n');
  const percent = (share) => (share == null ? '-' : `${Math.round(share * 100)}%`);
  const m = report.mixed;
  return [
    `<!-- node bench/scale.js, ${report.startedAt}: ${report.machine.cores} cores (${report.machine.model}), load ${report.machine.loadAverageAtEnd.join(' ')} at the end; ` +
      `${report.setup.seconds.perKind} s per kind, ${m.seconds} s mixed -->`,
    '',
    table(
      ['work', 'API ms', 'worker ms', 'PG primary ms', 'PG replica ms', 'WAL bytes', 'per API core /s', 'per PG core /s', 'reads on the replica'],
      Object.values(report.perKind).map((k) => [
        `${k.title}, per ${k.unit}`,
        k.cpuMsPerUnit.api,
        k.cpuMsPerUnit.worker,
        k.cpuMsPerUnit.primary,
        k.cpuMsPerUnit.replica,
        k.bytesPerUnit.wal,
        k.perCoreSecond.api,
        k.perCoreSecond.postgres,
        percent(k.alone.readsOnReplica.replicaShare),
      ]),
    ),
    '',
    table(
      ['kind', 'per second', 'p50 ms', 'p99 ms', 'errors', 'in flight at the kill (retried)'],
      Object.entries(m.kinds).map(([k, s]) => [k, s.perSecond, s.latencyMs.p50, s.latencyMs.p99, s.errors ?? '-', s.inFlightAtKill ?? '-']),
    ),
    '',
    table(
      [
        'restaurants',
        'orders a day',
        'orders/s at the peak',
        'API cores',
        'worker cores',
        'PG primary cores',
        'PG replica cores',
        'WAL GB a day',
        'database growth GB a day',
      ],
      report.chain.atBusiestHour.map((r) => chainRow(r, (n) => n.toLocaleString('en'))),
    ),
    '',
  ].join('\n');
}

function printTable(report) {
  const rows = [];
  const pad = (cells, widths) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const table = (header, body) => {
    const widths = header.map((_, i) => Math.max(...[header, ...body].map((r) => String(r[i]).length)));
    rows.push(pad(header, widths), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map((r) => pad(r, widths)));
  };
  const show = (n) => (n == null ? '-' : n);
  rows.push(
    `bench/scale: ${report.setup.apiProcesses} API processes + ${report.setup.workerProcesses} worker, PostgreSQL primary + streaming replica, Redis; ` +
      `${report.machine.cores} cores, load ${report.machine.loadAverageAtEnd.join(' ')} at the end`,
    `idle: cores busy API ${round(report.idle.coresBusy.api)}, worker ${round(report.idle.coresBusy.worker)}, PG primary ${round(report.idle.coresBusy.primary)}, ` +
      `PG replica ${round(report.idle.coresBusy.replica)}; statements/s on the primary ${report.idle.statementsPerSecond.primary}`,
    '',
    `Alone (${report.setup.seconds.perKind} s each, ${report.setup.connections.solo} connections): CPU ms per unit, and units one core carries`,
  );
  table(
    ['kind', 'unit', '/s', 'p99 ms', 'API ms', 'worker ms', 'PG prim ms', 'PG repl ms', 'API/core-s', 'PG/core-s', 'WAL B', 'reads on replica'],
    Object.values(report.perKind).map((k) => [
      k.title,
      k.unit,
      show(k.alone.perSecond),
      show(k.alone.latencyMs.p99),
      show(k.cpuMsPerUnit.api),
      show(k.cpuMsPerUnit.worker),
      show(k.cpuMsPerUnit.primary),
      show(k.cpuMsPerUnit.replica),
      show(k.perCoreSecond.api),
      show(k.perCoreSecond.postgres),
      k.bytesPerUnit.wal,
      k.alone.readsOnReplica.replicaShare == null ? '-' : `${Math.round(k.alone.readsOnReplica.replicaShare * 100)}%`,
    ]),
  );
  const c = report.chain.assumptions;
  rows.push(
    '',
    `A chain at its busiest hour (per restaurant: ${c.ordersPerDay} orders a day, ${c.busiestHourShare * 100}% of them in that hour, ` +
      `${c.pageViewsPerOrder} page views and ${c.deliveriesPerOrder} deliveries per order, ${c.dashboardReadsPerMinute} dashboard reads and ` +
      `${c.partnerPagesPerMinute} partner page a minute): cores busy, from the costs alone`,
  );
  table(
    ['restaurants', 'orders/day', 'peak orders/s', 'API cores', 'worker cores', 'PG primary cores', 'PG replica cores', 'WAL GB/day', 'DB growth GB/day'],
    report.chain.atBusiestHour.map((r) => chainRow(r)),
  );
  const m = report.mixed;
  rows.push('', `Mixed (${m.seconds} s, ${m.killed.process} SIGKILLed at ${m.killed.atSecond} s): throughput and latency per kind`);
  table(
    ['kind', '/s', 'ok', 'p50 ms', 'p99 ms', 'errors', 'in flight at kill'],
    Object.entries(m.kinds).map(([k, s]) => [k, s.perSecond, s.ok, show(s.latencyMs.p50), show(s.latencyMs.p99), show(s.errors), show(s.inFlightAtKill)]),
  );
  const share = m.readsOnReplica.replicaShare;
  rows.push(
    '',
    `reads on the replica: ${share == null ? '-' : `${Math.round(share * 100)}%`} (${m.readsOnReplica.replica} of ${m.readsOnReplica.replica + m.readsOnReplica.primary} read statements, pg_stat_statements); ` +
      `the service's count (db_reads_total): ${
        m.readsOnReplica.service
          ? Object.entries(m.readsOnReplica.service)
              .map(([t, n]) => `${t} ${n}`)
              .join(', ')
          : 'not served'
      }`,
    `cores busy: API ${m.coresBusy.api}, worker ${m.coresBusy.worker}, PG primary ${m.coresBusy.primary}, PG replica ${m.coresBusy.replica}, bench client ${m.coresBusy.client}`,
    `CPU s in the mixed run, measured / predicted from the kinds alone: ${measuredVsPredicted(m)}`,
    `errors beyond the killed process's in-flight requests: ${m.errorsBeyondInFlightAtKill} (in flight at the kill, retried elsewhere: ${m.inFlightAtKill})`,
    `orders: ${report.integrity.orders.accepted} accepted, ${report.integrity.orders.lost} lost, ${report.integrity.orders.duplicated} duplicated` +
      ` (${report.integrity.orders.storedWithoutAnswer} stored without a 2xx answer)`,
    `deliveries: ${report.integrity.deliveries.received}/${report.integrity.deliveries.expected}, ${report.integrity.deliveries.lost} lost, ${report.integrity.deliveries.duplicated} duplicated`,
  );
  console.log(rows.join('\n'));
}

function measuredVsPredicted(m) {
  return ['api', 'worker', 'primary', 'replica'].map((g) => `${g} ${m.cpuSeconds[g]} / ${m.cpuPredictedFromKinds[g]}`).join(', ');
}

/** A row of the chain table: restaurants and orders a day written with `count` (thousands separators in Markdown). */
function chainRow(r, count = (n) => n) {
  const { api, worker, primary, replica } = r.coresAtPeak;
  return [count(r.restaurants), count(r.ordersPerDay), r.peakOrdersPerSecond, api, worker, primary, replica, r.walGBPerDay, r.databaseGrowthGBPerDay];
}
