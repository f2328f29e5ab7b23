// Analytics at a million submissions (issue 13). In a database of its own on the PostgreSQL at BENCH_PG_URL:
//   1. 1,000,000 submissions generated with SQL (5 metric ratings each, 20 locations, 400 days, 2 channels), written
//      with the triggers off, then the rollups built by `npm run admin -- rebuild-analytics` (timed);
//   2. p50/p99 of a 90-day daily series grouped by location and of a 365-day total per metric, through the service
//      (GraphQL over HTTP: rollups; the answer's size too), beside the same answer computed by a plain GROUP BY over
//      the raw rows (SQL only);
//   3. the cost of a submission write with the analytics trigger and without it, alternating rounds.
// Goals: p50 <= 15 ms, >= 20x faster than raw; extra write cost < 20%.
//   node bench/analytics.js     env: BENCH_PG_URL (postgresql://postgres@127.0.0.1:5432/postgres), SUBMISSIONS (1000000),
//                               WARMUP (30), QUERY_ROUNDS (30), RAW_ROUNDS (3), WRITE_ROUNDS (4), WRITES_PER_ROUND (200),
//                               KEEP_DB (keep the database at the end), REUSE_DB (a kept database's name: no
//                               generation and no rebuild, about 5 minutes saved; phases 2 and 3 only)
// Loopback only, bounded: the database is dropped at the end (unless kept or reused).
import pg from 'pg';
import { startService } from './lib/service.js';

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SUBMISSIONS = Number(process.env.SUBMISSIONS ?? 1_000_000);
const QUERY_ROUNDS = Number(process.env.QUERY_ROUNDS ?? 30);
const RAW_ROUNDS = Number(process.env.RAW_ROUNDS ?? 3);
// Queries before measuring: a service answers a dashboard for days, so its p50 is taken once V8 has optimized the
// path (three warm-ups left the first measured queries on unoptimized code: about 2 ms more at p50).
const WARMUP = Number(process.env.WARMUP ?? 30);
const WRITE_ROUNDS = Number(process.env.WRITE_ROUNDS ?? 4);
const WRITES_PER_ROUND = Number(process.env.WRITES_PER_ROUND ?? 200);
const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1);

const REUSE_DB = process.env.REUSE_DB;
const dbName = REUSE_DB ?? `feedback_bench_analytics_${process.pid}`;
const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const adminClient = new pg.Client(ADMIN_URL);
await adminClient.connect();
if (!REUSE_DB) await adminClient.query(`create database ${dbName}`);
const t0 = performance.now();
const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
const median = (xs) => pct(xs, 0.5);

let service;
const sql = new pg.Client(dbUrl);
try {
  service = await startService('analytics', { DATABASE_URL: dbUrl });
  await sql.connect();
  const scope = 'analytics:read submissions:write';
  // The kept database's business: the one with the rollups.
  const kept = REUSE_DB && (await sql.query(`select business_id from analytics_rollup group by 1 order by count(*) desc limit 1`)).rows[0].business_id;
  // The admin CLI blocks this process for a while: a kept-alive socket may be closed under it, so try twice.
  const tenant = () => (kept ? service.businessToken(kept, scope) : service.tenantToken(scope));
  const { accessToken, business } = await tenant().catch(tenant);
  const bus = business.id;
  const id = (prefix, n) => `${prefix}_BENCH${String(n).padStart(21, '0')}`;
  const metrics = [1, 2, 3, 4, 5].map((n) => id('mtr', n));
  const locations = Array.from({ length: 20 }, (_, n) => id('loc', n));
  const survey = id('sur', 1);
  const step = id('step', 1);
  const ratings = metrics.map((m, k) => `'${m}', 1 + abs(hashint4(g * 5 + ${k})) % 5`).join(', ');
  // A reused database has its data and rollups already.
  if (!kept) {
    await sql.query(`insert into survey (id, business_id, name, status, created_at, updated_at) values ($1, $2, 'Bench', 'active', now(), now())`, [
      survey,
      bus,
    ]);
    for (const m of metrics) await sql.query(`insert into metric (id, business_id, name, created_at, updated_at) values ($1, $2, $1, now(), now())`, [m, bus]);
    await sql.query(
      `insert into survey_step (id, business_id, survey_id, position, type, required, content, metric_ids, created_at, updated_at)
       values ($1, $2, $3, 0, 'metrics', true, '{}', $4, now(), now())`,
      [step, bus, survey, JSON.stringify(metrics)],
    );
    for (const l of locations)
      await sql.query(`insert into location (id, business_id, name, metadata, created_at, updated_at) values ($1, $2, $1, '{}', now(), now())`, [l, bus]);

    // 1. The data, with SQL: the rows as the service would write them (the day its trigger would set: no time zones
    // here, so UTC), the triggers off (session_replication_role); the rollups are then built by the rebuild command.
    let t = performance.now();
    const CHUNK = 100_000;
    for (let from = 1; from <= SUBMISSIONS; from += CHUNK) {
      await sql.query(`set session_replication_role = replica`);
      await sql.query(
        `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, location_id, status, source, channel, analytics_day)
         select 'sub_G' || lpad(g::text, 25, '0'), ts, ts, $1, $2,
                jsonb_build_array(jsonb_build_object('step', $3::text, 'ratings', jsonb_build_object(${ratings}))),
                '{}', ($4::text[])[1 + abs(hashint4(g * 3 + 1)) % 20], 'completed', 'api', case when hashint4(g * 7 + 3) % 2 = 0 then 'qr' end,
                (ts at time zone 'UTC')::date
           from (select g, to_timestamp(($5::bigint + (g % 400) * ${DAY}::bigint + abs(hashint4(g)) % ${DAY}) / 1000.0) as ts
                   from generate_series($6::int, $7::int) g) x`,
        [bus, survey, step, locations, START, from, Math.min(SUBMISSIONS, from + CHUNK - 1)],
      );
      await sql.query(`set session_replication_role = origin`);
    }
    await sql.query('analyze');
    console.log(`generated ${SUBMISSIONS} submissions in ${seconds(t)} s`);
    t = performance.now();
    const rebuilt = service.admin('rebuild-analytics', '--business', bus);
    // What autovacuum does within a minute of a bulk write (hint bits, visibility map): without it the first reads of
    // freshly rebuilt rollups pay for it, which no steady-state dashboard does.
    await sql.query('vacuum analyze analytics_rollup');
    console.log(`rebuild-analytics: ${seconds(t)} s, ${JSON.stringify(rebuilt.data[0])}`);
  }
  const { rows: sizes } = await sql.query(`select count(*)::int as n from analytics_rollup where business_id = $1`, [bus]);
  console.log(`analytics_rollup rows: ${sizes[0].n}`);

  // 2. The two queries: rollups through the service, the same figures from raw rows with SQL.
  const graphql = async (query) => {
    const started = performance.now();
    const res = await fetch(`${service.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ query }),
    });
    const text = await res.text();
    const body = JSON.parse(text);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return { ms: performance.now() - started, data: body.data, bytes: Buffer.byteLength(text) };
  };
  const from90 = START + 200 * DAY;
  const cases = [
    {
      name: '90-day daily series grouped by location',
      gql: `{ analyticsMetrics(business: "${bus}", from: ${from90}, to: ${from90 + 90 * DAY}, interval: day, groupBy: [location]) { location period count mean stddev median p25 p75 csat } }`,
      raw: `select s.location_id, (s.created_at at time zone 'UTC')::date as day, count(*), avg(r.value::int), stddev_samp(r.value::int),
                   percentile_disc(array[0.25, 0.5, 0.75]) within group (order by r.value::int)
              from submission s, jsonb_array_elements(s.answers) a, jsonb_each_text(a->'ratings') r
             where s.business_id = $1 and s.created_at >= to_timestamp(${from90} / 1000.0) and s.created_at < to_timestamp(${from90 + 90 * DAY} / 1000.0)
             group by 1, 2`,
    },
    {
      name: '365-day total per metric',
      gql: `{ analyticsMetrics(business: "${bus}", from: ${START}, to: ${START + 365 * DAY}, interval: total, groupBy: [metric]) { metric count mean stddev median p25 p75 csat distribution } }`,
      raw: `select r.key, count(*), avg(r.value::int), stddev_samp(r.value::int),
                   percentile_disc(array[0.25, 0.5, 0.75]) within group (order by r.value::int)
              from submission s, jsonb_array_elements(s.answers) a, jsonb_each_text(a->'ratings') r
             where s.business_id = $1 and s.created_at >= to_timestamp(${START} / 1000.0) and s.created_at < to_timestamp(${START + 365 * DAY} / 1000.0)
             group by 1`,
    },
  ];
  for (const c of cases) {
    for (let i = 0; i < WARMUP; i++) await graphql(c.gql); // warm-up
    const rollup = [];
    let rows = 0;
    let bytes = 0;
    for (let i = 0; i < QUERY_ROUNDS; i++) {
      const answer = await graphql(c.gql);
      rollup.push(answer.ms);
      rows = answer.data.analyticsMetrics.length;
      bytes = answer.bytes;
    }
    const raw = [];
    for (let i = 0; i < RAW_ROUNDS; i++) {
      const started = performance.now();
      await sql.query(c.raw, [bus]);
      raw.push(performance.now() - started);
    }
    console.log(
      `${c.name} (${rows} rows, ${(bytes / 1024).toFixed(0)} KB): rollups via GraphQL p50 ${median(rollup).toFixed(1)} ms, p99 ${pct(rollup, 0.99).toFixed(1)} ms; ` +
        `raw GROUP BY (SQL only) p50 ${median(raw).toFixed(0)} ms, p99 ${pct(raw, 0.99).toFixed(0)} ms; ${(median(raw) / median(rollup)).toFixed(0)}x`,
    );
  }

  // 3. Write cost: one submission (5 ratings, random location and day) per transaction, trigger on vs off, alternating.
  const write = async (n) => {
    const started = performance.now();
    await sql.query(
      `insert into submission (id, created_at, updated_at, business_id, survey_id, answers, metadata, location_id, status, source, channel)
       values ('sub_W' || lpad($1::text, 25, '0'), to_timestamp(($2::bigint + (abs(hashint4($1::int)) % 400) * ${DAY}::bigint) / 1000.0), now(), $3, $4,
               jsonb_build_array(jsonb_build_object('step', $5::text, 'ratings', jsonb_build_object(${ratings.replaceAll('g * 5', '$1::int * 5')}))),
               '{}', ($6::text[])[1 + abs(hashint4($1::int * 3 + 1)) % 20], 'completed', 'api', 'qr')`,
      [n, START, bus, survey, step, locations],
    );
    return performance.now() - started;
  };
  // The same through the API: createSubmission over GraphQL (checks, event, ORM), as partners and pages write.
  const apiWrite = async (n) => {
    const ratingsOf = Object.fromEntries(metrics.map((m, k) => [m, 1 + ((n * 5 + k) % 5)]));
    const started = performance.now();
    const res = await fetch(`${service.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({
        query: 'mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }',
        variables: { b: bus, s: survey, i: { answers: [{ step, ratings: ratingsOf }], location: locations[n % 20] } },
      }),
    });
    const body = await res.json();
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return performance.now() - started;
  };
  const measure = async (label, fn) => {
    const rounds = { on: [], off: [] };
    for (let round = 0; round < WRITE_ROUNDS * 2; round++) {
      const mode = round % 2 === 0 ? 'off' : 'on';
      await sql.query(`alter table submission ${mode === 'on' ? 'enable' : 'disable'} trigger analytics_submission_change`);
      await sql.query(`alter table submission ${mode === 'on' ? 'enable' : 'disable'} trigger analytics_submission_day`);
      const times = [];
      for (let i = 0; i < WRITES_PER_ROUND; i++) times.push(await fn(++n));
      rounds[mode].push(median(times));
    }
    const on = median(rounds.on);
    const off = median(rounds.off);
    console.log(
      `${label}: without analytics median ${off.toFixed(3)} ms, with ${on.toFixed(3)} ms: ${on >= off ? '+' : ''}${(((on - off) / off) * 100).toFixed(0)}% ` +
        `(round medians off ${rounds.off.map((x) => x.toFixed(2)).join(' ')}; on ${rounds.on.map((x) => x.toFixed(2)).join(' ')})`,
    );
  };
  // A reused database holds the writes of earlier runs: number on from them.
  let n = (await sql.query(`select count(*)::int as n from submission where id like 'sub\\_W%'`)).rows[0].n;
  await measure('submission insert, one per transaction (SQL)', write);
  await measure('createSubmission over GraphQL (HTTP)', apiWrite);
  await sql.query(`alter table submission enable trigger analytics_submission_change`);
  await sql.query(`alter table submission enable trigger analytics_submission_day`);
  console.log(`total ${seconds(t0)} s`);
} finally {
  await sql.end().catch(() => {});
  await service?.stop();
  if (process.env.KEEP_DB || REUSE_DB) console.log(`kept ${dbUrl} (REUSE_DB=${dbName})`);
  else await adminClient.query(`drop database if exists ${dbName} with (force)`);
  await adminClient.end();
}
