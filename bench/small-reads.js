// Small answers must not get slower with the compiled executor: `{ health { status } }` and a single-object read
// (`survey(business, id)`, token verified, one SELECT), alternated in ROUNDS rounds. Prints requests/second, p99 and
// the server's CPU time per request (steadier than requests/second on a shared machine); run it on two versions and
// compare the CPU per request.
//   node bench/small-reads.js      (DURATION=seconds per round, default 5; ROUNDS default 3; CONNECTIONS default 10)
// Loopback only and bounded in time: starts its own server (bench/lib/service.js), seeds one survey, stops.
import autocannon from 'autocannon';
import { cpuMs, startService } from './lib/service.js';

const DURATION = Number(process.env.DURATION ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);

const service = await startService('small-reads');
const { base, child, stop } = service;
const deadline = setTimeout(
  async () => {
    console.error('bench/small-reads: took too long, stopping');
    await stop();
    process.exit(1);
  },
  (120 + DURATION * ROUNDS * 3) * 1000,
);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

try {
  const { accessToken, business } = await service.tenantToken('surveys:read surveys:write');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` };
  const created = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      query: 'mutation($b: ID!) { createSurvey(business: $b, input: {name: "One", status: active}) { id } }',
      variables: { b: business.id },
    }),
  }).then((r) => r.json());
  const survey = created.data.createSurvey.id;
  const cases = {
    health: JSON.stringify({ query: '{ health { status } }' }),
    singleObject: JSON.stringify({
      query: 'query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { id name status createdAt steps { id } } }',
      variables: { b: business.id, id: survey },
    }),
  };
  const check = await fetch(`${base}/graphql`, { method: 'POST', headers, body: cases.singleObject }).then((r) => r.json());
  if (check.data?.survey?.id !== survey) throw new Error(`single-object read failed: ${JSON.stringify(check)}`);
  const run = (body, duration = DURATION) => autocannon({ url: `${base}/graphql`, method: 'POST', connections: CONNECTIONS, duration, headers, body });
  for (const body of Object.values(cases)) await run(body, 2); // warm-up
  const results = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const names = round % 2 ? Object.keys(cases).reverse() : Object.keys(cases);
    for (const name of names) {
      const cpu0 = cpuMs(child.pid);
      const r = await run(cases[name]);
      results[name].push({ rps: r.requests.average, p99: r.latency.p99, cpu: (cpuMs(child.pid) - cpu0) / r.requests.total, errors: r.errors + r.non2xx });
    }
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [
      name,
      {
        requestsPerSecond: Math.round(median(runs.map((r) => r.rps))),
        p99Ms: median(runs.map((r) => r.p99)),
        cpuMsPerRequest: Math.round(median(runs.map((r) => r.cpu)) * 100) / 100,
        errors: runs.reduce((n, r) => n + r.errors, 0),
      },
    ]),
  );
  console.log(JSON.stringify({ durationSeconds: DURATION, rounds: ROUNDS, connections: CONNECTIONS, ...summary }, null, 2));
  if (Object.values(summary).some((s) => s.errors)) process.exitCode = 1;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await stop();
}
