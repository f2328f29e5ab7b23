// The three-level list under load: one page of 50 surveys x 5 steps x 3 metrics per step, all levels selected
// (the page test/graphql/sql-count.test.ts holds to 3 SQL statements). Prints requests/second, p50/p99 latency, the
// server's CPU time, allocation, young-collection promotion and GC pause per request.
//   node bench/graphql-list.js            the service alone (DURATION=seconds, default 10; CONNECTIONS default 10)
//   node bench/graphql-list.js --floor    side by side with the floor (bench/lib/floor.js: the same page from the
//                                         same 3 SQL statements by a hand-written Node http + pg handler), in
//                                         ROUNDS alternating rounds (default 3) each way; medians and the ratio
//   BENCH_FLOOR_ARGS='--cpu-prof --cpu-prof-dir=/tmp/floor'   node flags for the floor alone (to profile it), as
//                                         BENCH_NODE_ARGS are for the service
// Loopback only and bounded in time: starts its own server (embedded PostgreSQL in a temp DATA_DIR, or DATABASE_URL
// when set), creates a tenant with the admin CLI, mints a client_credentials token, seeds through the GraphQL API,
// measures, stops everything. On a shared machine compare the ratios of one run, not runs with each other.
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { allocationMeter, cpuMs, extraNodeArgs, freePort, nodeBin, nodeFlags, root, sleep, startService } from './lib/service.js';
import { METRICS_PER_STEP, seedSurveyPage, STEPS, SURVEYS } from './lib/seed.js';
import { THREE_LEVEL_QUERY as QUERY } from '../test/helpers/queries.js';

const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const SIDE_BY_SIDE = process.argv.includes('--floor');
const ROUNDS = SIDE_BY_SIDE ? Number(process.env.ROUNDS ?? 3) : 1;

const TRACE_GC = process.env.TRACE_GC !== '0';
const service = await startService('graphql-list', {}, { traceGc: TRACE_GC, limitSeconds: 120 + DURATION * 3 * ROUNDS * 2 });
const { base, env, child: server, stop } = service;
let floor;
// A floor still running when the time limit stops the bench goes with this process.
process.on('exit', () => floor?.child.kill('SIGKILL'));

/** The floor as its own process, with the service's node flags, on the service's database. */
async function startFloor() {
  const port = await freePort();
  const child = fork(path.join(root, 'bench/lib/floor.js'), [], {
    execPath: nodeBin,
    execArgv: [...extraNodeArgs('BENCH_FLOOR_ARGS'), ...nodeFlags(), ...(TRACE_GC ? ['--trace-gc-nvp'] : [])],
    env: { ...process.env, DATABASE_URL: service.databaseUrl(), PORT: String(port) },
    stdio: ['ignore', TRACE_GC ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  const allocation = TRACE_GC ? allocationMeter(child) : { bytes: () => NaN, promoted: () => NaN, pauseMs: () => NaN };
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', () => reject(new Error('the floor exited during start')));
  });
  return { child, allocation, url: `http://127.0.0.1:${port}/graphql` };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round1 = (n) => Math.round(n * 10) / 10;
// CPU per request to the hundredth: a 5% difference between two builds is about 0.1 ms.
const round2 = (n) => Math.round(n * 100) / 100;

try {
  process.stderr.write('bench/graphql-list: seeding\n');
  const { business, headers, gql } = await seedSurveyPage(service);
  const b = business.id;
  const page = (await gql(QUERY, { b, s: SURVEYS })).surveys;
  const steps = page.data.flatMap((s) => s.steps);
  const rated = steps.flatMap((s) => s.metrics.metrics);
  if (page.data.length !== SURVEYS || steps.length !== SURVEYS * STEPS || rated.length !== SURVEYS * STEPS * METRICS_PER_STEP) {
    throw new Error(`unexpected page shape: ${page.data.length} surveys, ${steps.length} steps, ${rated.length} metrics`);
  }
  const body = JSON.stringify({ query: QUERY, variables: { b, s: SURVEYS } });
  const answer = JSON.stringify({ data: { surveys: page } });
  const bytes = Buffer.byteLength(answer);

  const targets = [{ name: 'service', url: `${base}/graphql`, pid: server.pid, allocation: service.allocation, runs: [] }];
  if (SIDE_BY_SIDE) {
    floor = await startFloor();
    const res = await fetch(floor.url, { method: 'POST', headers, body });
    const floorAnswer = await res.text();
    if (floorAnswer !== answer) throw new Error(`the floor's answer differs from the service's:\n${floorAnswer.slice(0, 300)}\n${answer.slice(0, 300)}`);
    targets.push({ name: 'floor', url: floor.url, pid: floor.child.pid, allocation: floor.allocation, runs: [] });
  }

  const progress = (message) => process.stderr.write(`bench/graphql-list: ${message}\n`);
  const run = (target, duration) => autocannon({ url: target.url, method: 'POST', connections: CONNECTIONS, duration, headers, body });
  for (const target of targets) await run(target, 2); // warm-up (JIT, pools): discarded
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate who goes first, so a load that comes and goes on the machine falls on both alike.
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const target of order) {
      progress(`round ${round + 1}/${ROUNDS}: ${target.name}`);
      const cpu0 = cpuMs(target.pid);
      const pg0 = service.cpu().postgres;
      const client0 = process.cpuUsage();
      const alloc0 = target.allocation.bytes();
      const promoted0 = target.allocation.promoted();
      const pause0 = target.allocation.pauseMs();
      const r = await run(target, DURATION);
      const client = process.cpuUsage(client0);
      const pgMs = (service.cpu().postgres - pg0) * 1000;
      await sleep(200); // lets the last GC lines arrive
      target.runs.push({
        requestsPerSecond: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        cpuMsPerRequest: (cpuMs(target.pid) - cpu0) / r.requests.total,
        postgresCpuMsPerRequest: pgMs / r.requests.total,
        clientCpuMsPerRequest: (client.user + client.system) / 1000 / r.requests.total,
        allocatedMBPerRequest: (target.allocation.bytes() - alloc0) / r.requests.total / 1e6,
        promotedKBPerRequest: (target.allocation.promoted() - promoted0) / r.requests.total / 1e3,
        gcPauseMsPerRequest: (target.allocation.pauseMs() - pause0) / r.requests.total,
        errors: r.errors + r.non2xx,
      });
    }
  }
  const summary = Object.fromEntries(
    targets.map((t) => [
      t.name,
      {
        requestsPerSecond: Math.round(median(t.runs.map((r) => r.requestsPerSecond))),
        latencyMs: { p50: median(t.runs.map((r) => r.p50)), p99: median(t.runs.map((r) => r.p99)) },
        cpuMsPerRequest: round2(median(t.runs.map((r) => r.cpuMsPerRequest))),
        postgresCpuMsPerRequest: round2(median(t.runs.map((r) => r.postgresCpuMsPerRequest))),
        clientCpuMsPerRequest: round1(median(t.runs.map((r) => r.clientCpuMsPerRequest))),
        allocatedMBPerRequest: Math.round(median(t.runs.map((r) => r.allocatedMBPerRequest)) * 100) / 100,
        promotedKBPerRequest: Math.round(median(t.runs.map((r) => r.promotedKBPerRequest))),
        gcPauseMsPerRequest: Math.round(median(t.runs.map((r) => r.gcPauseMsPerRequest)) * 100) / 100,
        rounds: t.runs.map((r) => Math.round(r.requestsPerSecond)),
        errors: t.runs.reduce((n, r) => n + r.errors, 0),
      },
    ]),
  );
  const ratio = SIDE_BY_SIDE
    ? {
        serviceOverFloorRequests: Math.round(median(targets[0].runs.map((r, i) => r.requestsPerSecond / targets[1].runs[i].requestsPerSecond)) * 100) / 100,
        serviceOverFloorCpu: round1(median(targets[0].runs.map((r, i) => r.cpuMsPerRequest / targets[1].runs[i].cpuMsPerRequest))),
      }
    : undefined;
  console.log(
    JSON.stringify(
      {
        scenario: `surveys page: ${SURVEYS} surveys x ${STEPS} steps x ${METRICS_PER_STEP} metrics (${bytes} bytes per answer)`,
        connections: CONNECTIONS,
        nodeEnv: env.NODE_ENV,
        durationSeconds: DURATION,
        rounds: ROUNDS,
        ...summary,
        ...(ratio ? { ratio } : {}),
        loadAverage: os.loadavg().map(round1),
      },
      null,
      2,
    ),
  );
  if (targets.some((t) => t.runs.some((r) => r.errors))) process.exitCode = 1;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  floor?.child.kill('SIGTERM');
  await stop();
}
