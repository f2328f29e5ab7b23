// The three-level list under load: one page of 50 surveys x 5 steps x 3 metrics per step, all levels selected
// (the page test/graphql/sql-count.test.ts holds to 4 SQL statements). Prints requests/second and p50/p99 latency.
//   node bench/graphql-list.js        (DURATION=seconds, default 10; CONNECTIONS default 10)
// Loopback only and bounded in time: starts its own server (embedded PostgreSQL in a temp DATA_DIR, or DATABASE_URL
// when set), creates a tenant with the admin CLI, mints a client_credentials token, seeds through the GraphQL API,
// measures, stops everything.
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { startService } from './lib/service.js';
import { METRICS_PER_STEP, seedSurveyPage, STEPS, SURVEYS } from './lib/seed.js';
import { THREE_LEVEL_QUERY as QUERY } from '../test/helpers/queries.js';

const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);

const service = await startService('graphql-list');
const { base, env, child: server, stop } = service;
const deadline = setTimeout(async () => {
  console.error('bench/graphql-list: took too long, stopping');
  await stop();
  process.exit(1);
}, (90 + DURATION * 3) * 1000);

try {
  const { business, headers, gql } = await seedSurveyPage(service);
  const b = business.id;
  const page = (await gql(QUERY, { b, s: SURVEYS })).surveys;
  const steps = page.data.flatMap((s) => s.steps);
  const rated = steps.flatMap((s) => s.metrics.metrics);
  if (page.data.length !== SURVEYS || steps.length !== SURVEYS * STEPS || rated.length !== SURVEYS * STEPS * METRICS_PER_STEP) {
    throw new Error(`unexpected page shape: ${page.data.length} surveys, ${steps.length} steps, ${rated.length} metrics`);
  }
  const body = JSON.stringify({ query: QUERY, variables: { b, s: SURVEYS } });
  const bytes = Buffer.byteLength(JSON.stringify({ data: { surveys: page } }));

  const run = (duration) =>
    autocannon({ url: `${base}/graphql`, method: 'POST', connections: CONNECTIONS, duration, headers, body });
  await run(2); // warm-up (JIT, pools): discarded
  // CPU time of the server process per request: steadier than wall time on a shared machine (Linux /proc only).
  const cpuTicks = () => {
    try {
      const fields = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return NaN;
    }
  };
  const ticks0 = cpuTicks();
  const r = await run(DURATION);
  const serverCpuMsPerRequest = Math.round((((cpuTicks() - ticks0) * 10) / r.requests.total) * 10) / 10;
  const errors = r.errors + r.non2xx;
  console.log(
    JSON.stringify(
      {
        scenario: `surveys page: ${SURVEYS} surveys x ${STEPS} steps x ${METRICS_PER_STEP} metrics (${bytes} bytes per answer)`,
        connections: CONNECTIONS,
        nodeEnv: env.NODE_ENV,
        durationSeconds: DURATION,
        requests: r.requests.total,
        requestsPerSecond: Math.round(r.requests.average),
        latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
        serverCpuMsPerRequest,
        loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
        errors,
      },
      null,
      2,
    ),
  );
  if (errors) process.exitCode = 1;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await stop();
}
