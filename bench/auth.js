// Cost of authentication: requests/second of a cheap GraphQL query with a verified bearer token against the same
// query without one. Goal (issue 3): the authenticated one reaches at least 90% of the other.
//   node bench/auth.js        (DURATION=seconds per run, default 5; ROUNDS default 2; CONNECTIONS default 20)
// Loopback only and bounded in time: starts its own server (embedded PostgreSQL in a temp DATA_DIR, or DATABASE_URL
// when set), creates a tenant with the admin CLI, mints a client_credentials token, measures, stops everything.
import autocannon from 'autocannon';
import { startService } from './lib/service.js';

const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);

const service = await startService('auth', {}, { limitSeconds: 60 + DURATION * 6 });
const { base, stop } = service;

try {
  const { accessToken, business } = await service.tenantToken('surveys:read');

  const body = JSON.stringify({ query: '{ health { status } }' });
  const auth = { authorization: `Bearer ${accessToken}` };
  // Sanity: the token is verified and accepted (a query that needs it), and the cheap query answers.
  const check = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ query: `{ business(id: "${business.id}") { id } }` }),
  });
  const checked = await check.json();
  if (checked.data?.business?.id !== business.id) throw new Error(`token refused: ${JSON.stringify(checked)}`);

  const run = (headers) =>
    autocannon({
      url: `${base}/graphql`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  await run({}); // warm-up (JIT, pools): discarded
  // Alternate the two, ROUNDS times each, so a noisy neighbour on a shared machine hurts both alike.
  const ROUNDS = Number(process.env.ROUNDS ?? 2);
  const a = [];
  const b = [];
  const c = [];
  // Control: no token but a header of the same size, to tell transport cost (bytes parsed) from verification cost.
  const padding = { 'x-padding': 'p'.repeat(accessToken.length) };
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await run({}));
    b.push(await run(auth));
    c.push(await run(padding));
  }
  const mean = (runs, f) => runs.reduce((sum, r) => sum + f(r), 0) / runs.length;
  const anonymous = { requests: { average: mean(a, (r) => r.requests.average) }, latency: { p99: mean(a, (r) => r.latency.p99) } };
  const authenticated = { requests: { average: mean(b, (r) => r.requests.average) }, latency: { p99: mean(b, (r) => r.latency.p99) } };
  const bad = [...a, ...b, ...c].reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  const ratio = authenticated.requests.average / anonymous.requests.average;
  console.log(
    JSON.stringify(
      {
        query: '{ health { status } }',
        durationSeconds: DURATION,
        connections: CONNECTIONS,
        unauthenticatedRps: Math.round(anonymous.requests.average),
        authenticatedRps: Math.round(authenticated.requests.average),
        sameBytesNoTokenRps: Math.round(mean(c, (r) => r.requests.average)),
        ratioToSameBytes: Number((authenticated.requests.average / mean(c, (r) => r.requests.average)).toFixed(3)),
        unauthenticatedP99Ms: anonymous.latency.p99,
        authenticatedP99Ms: authenticated.latency.p99,
        ratio: Number(ratio.toFixed(3)),
        goal: '>= 0.90',
        met: ratio >= 0.9,
        failedResponses: bad,
      },
      null,
      2,
    ),
  );
} finally {
  await stop();
}
