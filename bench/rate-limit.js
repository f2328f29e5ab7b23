// Cost of the API rate limiter on the cheapest operation: requests/second of an authenticated `{ health { status } }`
// with the limiter off, on in memory, and on in Redis (REDIS_URL, default redis://127.0.0.1:6379; REDIS=0 skips it).
// Goal (issue 14): in memory, under 5% fewer requests/second than off. Three services run side by side (the quota
// raised so nothing is refused: the limiter counts every request, in both of its windows, the rate and the burst
// reserve) and the rounds alternate, so a noisy neighbour on a shared machine hurts each alike. Medians of ROUNDS
// (default 3) runs of DURATION seconds (default 5). Beside requests/second, the service's CPU per request (from
// /proc): on a machine shared with other work, rates swing by tens of percent while CPU per request moves little,
// so the overhead is also given as the extra CPU per request.
// Loopback only and bounded in time.
import autocannon from 'autocannon';
import os from 'node:os';
import { cpuMs, startService } from './lib/service.js';

const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const variants = [
  ['off', { RATE_LIMIT_API_PER_SECOND: '0' }],
  ['memory', { RATE_LIMIT_API_PER_SECOND: '1000000', RATE_LIMIT_API_BURST: '2000000' }],
  ...(process.env.REDIS === '0'
    ? []
    : [['redis', { RATE_LIMIT_API_PER_SECOND: '1000000', RATE_LIMIT_API_BURST: '2000000', REDIS_URL, REDIS_KEY_PREFIX: `bench-${Date.now()}:` }]]),
];
const services = [];
const deadline = setTimeout(
  async () => {
    console.error('bench/rate-limit: took too long, stopping');
    await Promise.all(services.map((s) => s.stop()));
    process.exit(1);
  },
  (300 + DURATION * (ROUNDS + 1) * variants.length * 2) * 1000,
);

try {
  for (const [name, env] of variants) {
    const service = await startService(`rl-${name}`, env);
    services.push(service);
    const { accessToken } = await service.tenantToken('surveys:read');
    service.name = name;
    service.headers = { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` };
  }
  const body = JSON.stringify({ query: '{ health { status } }' });
  const run = async (service, duration = DURATION) => {
    const before = cpuMs(service.child.pid);
    const result = await autocannon({ url: `${service.base}/graphql`, method: 'POST', connections: CONNECTIONS, duration, headers: service.headers, body });
    result.cpuMsPerRequest = (cpuMs(service.child.pid) - before) / result.requests.total;
    return result;
  };
  for (const service of services) await run(service, 2); // warm-up (JIT, pools): discarded
  const results = Object.fromEntries(services.map((s) => [s.name, []]));
  for (let i = 0; i < ROUNDS; i++) for (const service of i % 2 ? [...services].reverse() : services) results[service.name].push(await run(service));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [
      name,
      {
        rps: Math.round(median(runs.map((r) => r.requests.average))),
        cpuMsPerRequest: Number(median(runs.map((r) => r.cpuMsPerRequest)).toFixed(4)),
        p99Ms: median(runs.map((r) => r.latency.p99)),
        failed: runs.reduce((n, r) => n + r.non2xx + r.errors, 0),
        rounds: runs.map((r) => Math.round(r.requests.average)),
      },
    ]),
  );
  const overhead = (name) => (summary[name] ? Number((1 - summary[name].rps / summary.off.rps).toFixed(3)) : undefined);
  const cpuOverhead = (name) => (summary[name] ? Number((summary[name].cpuMsPerRequest / summary.off.cpuMsPerRequest - 1).toFixed(3)) : undefined);
  console.log(
    JSON.stringify(
      {
        query: '{ health { status } }',
        durationSeconds: DURATION,
        connections: CONNECTIONS,
        ...summary,
        overheadMemory: overhead('memory'),
        overheadRedis: overhead('redis'),
        cpuOverheadMemory: cpuOverhead('memory'),
        cpuOverheadRedis: cpuOverhead('redis'),
        loadAverage: os.loadavg().map((l) => Number(l.toFixed(1))),
        goal: 'memory overhead < 0.05',
        met: overhead('memory') < 0.05,
      },
      null,
      2,
    ),
  );
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await Promise.all(services.map((s) => s.stop()));
}
