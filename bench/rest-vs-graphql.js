// The same page through REST and through /graphql, side by side in one run: 50 surveys x 5 steps x 3 metrics,
//   GET /v2/businesses/{b}/surveys?pageSize=50&expand=steps.metrics.metrics   versus   the equivalent POST /graphql.
// Rounds alternate (REST, GraphQL, REST, GraphQL...) with the same duration and connections, so drift on a shared
// machine hits both alike. Prints requests/second and p50/p99 for each and REST/GraphQL. Goal: REST >= 95%.
//   node bench/rest-vs-graphql.js      (DURATION=seconds per round, default 5; ROUNDS default 3; CONNECTIONS default 10)
// Loopback only and bounded in time: starts its own server (bench/lib/service.js), seeds through GraphQL, stops.
import autocannon from 'autocannon';
import { startService } from './lib/service.js';
import { METRICS_PER_STEP, seedSurveyPage, STEPS, SURVEYS } from './lib/seed.js';
import { REST_SURVEY_PAGE_QUERY as QUERY } from '../test/helpers/queries.js';

const DURATION = Number(process.env.DURATION ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);

const service = await startService('rest-vs-graphql', {}, { limitSeconds: 120 + DURATION * ROUNDS * 2 * 1.5 });
const { base, env, stop } = service;

try {
  const { accessToken, business, headers, gql } = await seedSurveyPage(service);
  const b = business.id;
  const auth = { authorization: `Bearer ${accessToken}` };

  const restPath = `/v2/businesses/${b}/surveys?pageSize=${SURVEYS}&expand=steps.metrics.metrics`;
  const restPage = await (await fetch(`${base}${restPath}`, { headers: auth })).json();
  const graphqlPage = (await gql(QUERY, { b })).surveys;
  const rated = restPage.data?.flatMap((s) => s.steps).flatMap((s) => s.metrics.metrics) ?? [];
  if (restPage.data?.length !== SURVEYS || rated.length !== SURVEYS * STEPS * METRICS_PER_STEP || graphqlPage.data.length !== SURVEYS) {
    throw new Error(`unexpected page shape: ${JSON.stringify(restPage).slice(0, 300)}`);
  }

  const targets = {
    rest: { url: `${base}${restPath}`, method: 'GET', headers: auth },
    graphql: { url: `${base}/graphql`, method: 'POST', headers, body: JSON.stringify({ query: QUERY, variables: { b } }) },
  };
  const run = (name, duration) => autocannon({ ...targets[name], connections: CONNECTIONS, duration });
  await run('rest', 2); // warm-up (JIT, pools, caches): discarded
  await run('graphql', 2);

  const totals = { rest: { requests: 0, seconds: 0, p50: [], p99: [], errors: 0 }, graphql: { requests: 0, seconds: 0, p50: [], p99: [], errors: 0 } };
  // Each round runs both back to back: the ratio within a round is what machine noise disturbs least.
  const roundRatios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rps = {};
    for (const name of round % 2 ? ['graphql', 'rest'] : ['rest', 'graphql']) {
      const r = await run(name, DURATION);
      rps[name] = r.requests.total / r.duration;
      const t = totals[name];
      t.requests += r.requests.total;
      t.seconds += r.duration;
      t.p50.push(r.latency.p50);
      t.p99.push(r.latency.p99);
      t.errors += r.errors + r.non2xx;
    }
    roundRatios.push(Math.round((rps.rest / rps.graphql) * 1000) / 1000);
  }
  const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
  const summary = (t) => ({
    requestsPerSecond: Math.round(t.requests / t.seconds),
    latencyMs: { p50: median(t.p50), p99: median(t.p99) },
    requests: t.requests,
    errors: t.errors,
  });
  const rest = summary(totals.rest);
  const graphql = summary(totals.graphql);
  console.log(
    JSON.stringify(
      {
        scenario: `surveys page: ${SURVEYS} surveys x ${STEPS} steps x ${METRICS_PER_STEP} metrics, REST (expand=steps.metrics.metrics) vs /graphql`,
        connections: CONNECTIONS,
        nodeEnv: env.NODE_ENV,
        rounds: ROUNDS,
        secondsPerRound: DURATION,
        bytes: { rest: JSON.stringify(restPage).length, graphql: JSON.stringify({ data: { surveys: graphqlPage } }).length },
        rest,
        graphql,
        restOverGraphql: Math.round((rest.requestsPerSecond / graphql.requestsPerSecond) * 1000) / 1000,
        roundRatios,
        medianRoundRatio: median(roundRatios),
        goal: 'restOverGraphql >= 0.95',
      },
      null,
      2,
    ),
  );
  if (rest.errors || graphql.errors) process.exitCode = 1;
} finally {
  await stop();
}
