// The three hot writes of this build against another commit, alternated in rounds on the same machine: CPU per new
// order (bench/ingest), per outbound delivery (bench/webhook-delivery, paced phase) and per completed guest answer
// (bench/survey-page), service and PostgreSQL each, with ingestion's throughput and p99; with ONLY=list, the same for
// the three-level list page (bench/graphql-list), the read the structure work is held to. Each run starts its own
// service on its own throwaway database.
//   node bench/writes.js     env: BASE (commit, default 2946789), ROUNDS (3), ONLY (ingest,delivery,answer; or list),
//                            HEAD (a commit to measure instead of this checkout's working tree)
// A commit is checked out once into a worktree under the system's temp dir (this checkout's node_modules linked in,
// this checkout's bench/ copied over its own so both sides are driven by the same scripts).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './lib/service.js';

const BASE = process.env.BASE ?? '2946789';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ONLY = (process.env.ONLY ?? 'ingest,delivery,answer').split(',');

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
/** A side checked out from `commit`: its own tree (and so its own dist/), driven by this checkout's bench/. */
function checkout(commit) {
  const sha = git('rev-parse', commit);
  const tree = path.join(os.tmpdir(), `writes-${sha.slice(0, 10)}`);
  if (!fs.existsSync(tree)) git('worktree', 'add', '--detach', '-f', tree, sha);
  if (!fs.existsSync(path.join(tree, 'node_modules'))) fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
  fs.cpSync(path.join(root, 'bench'), path.join(tree, 'bench'), { recursive: true });
  return { name: sha.slice(0, 7), dir: tree };
}

const base = checkout(BASE);
const head = process.env.HEAD ? checkout(process.env.HEAD) : { name: 'working tree', dir: root };
const sides = [
  { name: `base ${base.name}`, dir: base.dir },
  { name: `head ${head.name}`, dir: head.dir },
];

const number = (text, re) => Number(text.match(re)?.[1] ?? NaN);
const cpu = (text, unit) => {
  const m = text.match(new RegExp(`CPU per ${unit}: node ([\\d.]+) ms \\+ postgres ([\\d.]+) ms`));
  return m ? { node: Number(m[1]), pg: Number(m[2]) } : { node: NaN, pg: NaN };
};

const benches = {
  ingest: {
    script: 'bench/ingest.js',
    env: { NEW_SECONDS: '8', REPEAT_SECONDS: '1' },
    read: (out) => ({ ...cpu(out, 'new order'), rate: number(out, /new orders[^:]*: (\d+) orders\/s/), p99: number(out, /new orders[^\n]*p99 (\d+) ms/) }),
  },
  delivery: {
    script: 'bench/webhook-delivery.js',
    env: { ORDERS: '1000', PACED: '50', PACED_SECONDS: '8' },
    // The paced phase's line (the last "CPU per delivery"): the cost at a rate the service keeps up with.
    read: (out) => {
      const lines = out.split('\n').filter((l) => l.includes('CPU per delivery'));
      return { ...cpu(lines.at(-1) ?? '', 'delivery'), rate: NaN, p99: NaN };
    },
  },
  answer: {
    script: 'bench/survey-page.js',
    env: { VIEW_SECONDS: '1', SUBMIT_SECONDS: '8', BRAND: '0' },
    read: (out) => ({ ...cpu(out, 'completed response'), rate: number(out, /(\d+) completed\/s/), p99: NaN }),
  },
  list: {
    script: 'bench/graphql-list.js',
    env: { DURATION: '10', TRACE_GC: '0' },
    read: (out) => {
      const service = JSON.parse(out.slice(out.indexOf('{')) || '{}').service ?? {};
      return {
        node: service.cpuMsPerRequest ?? NaN,
        pg: service.postgresCpuMsPerRequest ?? NaN,
        rate: service.requestsPerSecond ?? NaN,
        p99: service.latencyMs?.p99 ?? NaN,
      };
    },
  },
};

const results = {}; // bench -> side -> [figures]
for (let round = 1; round <= ROUNDS; round++) {
  for (const name of ONLY) {
    // Alternate which side goes first, so neither always runs on a machine the other just warmed.
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      const { script, env, read } = benches[name];
      const run = spawnSync(process.execPath, [script], { cwd: side.dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 600_000 });
      const figures = read(run.stdout ?? '');
      if (Number.isNaN(figures.node)) console.error(`${name} on ${side.name} printed no figures:\n${run.stdout}\n${run.stderr?.slice(-2000)}`);
      ((results[name] ??= {})[side.name] ??= []).push(figures);
      const extra = [Number.isNaN(figures.rate) ? '' : ` ${figures.rate}/s`, Number.isNaN(figures.p99) ? '' : ` p99 ${figures.p99} ms`].join('');
      console.log(`round ${round} ${name} ${side.name}: node ${figures.node} + pg ${figures.pg} = ${(figures.node + figures.pg).toFixed(2)} ms${extra}`);
    }
  }
}

const range = (xs) => (xs.length ? `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}` : '–');
console.log('\n| write | side | node ms | postgres ms | total ms | rate | p99 ms |\n|---|---|---:|---:|---:|---:|---:|');
for (const [name, bySide] of Object.entries(results)) {
  const totals = {};
  for (const [side, runs] of Object.entries(bySide)) {
    totals[side] = runs.map((r) => r.node + r.pg);
    const finite = (k) => runs.map((r) => r[k]).filter(Number.isFinite);
    console.log(
      `| ${name} | ${side} | ${range(finite('node'))} | ${range(finite('pg'))} | ${range(totals[side])} | ${range(finite('rate'))} | ${range(finite('p99'))} |`,
    );
  }
  const [b, h] = sides.map((s) => totals[s.name] ?? []);
  const median = (xs) => {
    const sorted = [...xs].sort((x, y) => x - y);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  if (b.length && h.length) console.log(`| ${name} | head / base (medians) | | | ${(median(h) / median(b)).toFixed(2)} | | |`);
}
