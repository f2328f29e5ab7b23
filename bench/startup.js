// Time from `npm start` to /readyz 200 on an existing data dir (embedded PostgreSQL), and resident memory when idle.
// Goals (issue 2): ready in under 3 s, under 150 MB resident. Loopback only, bounded: RUNS starts (default 5).
//   node bench/startup.js            (or: npm run bench:startup)
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, root, sleep } from './lib/service.js';

const RUNS = Number(process.env.RUNS ?? 5);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-startup-'));
fs.chmodSync(dataDir, 0o755);

function descendants(pid) {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = out
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter(Boolean);
  return children.flatMap((c) => [c, ...descendants(c)]);
}
const rssMb = (pid) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
};
const commandOf = (pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');

async function startOnce(measureMemory) {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const t0 = performance.now();
  const npm = spawn('npm', ['start', '--silent'], { cwd: root, env, detached: true, stdio: 'ignore' });
  let readyMs;
  for (let i = 0; i < 600 && readyMs === undefined; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) readyMs = performance.now() - t0;
    } catch {
      await sleep(20);
    }
  }
  if (readyMs === undefined) throw new Error('not ready within 12 s');
  let memory;
  if (measureMemory) {
    await sleep(3000); // idle
    const node = descendants(npm.pid).find((pid) => /^\S*node .*(src\/main\.ts|dist\/src\/main\.js)/.test(commandOf(pid)));
    const pgPids = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('postgres') && l.includes(dataDir))
      .map((l) => Number(l.trim().split(' ')[0]));
    memory = { node: rssMb(node), postgres: pgPids.reduce((sum, pid) => sum + rssMb(pid), 0) };
  }
  process.kill(-npm.pid, 'SIGTERM');
  await new Promise((r) => npm.once('exit', r));
  return { readyMs, memory };
}

try {
  await startOnce(false); // first start initialises the data dir; not measured
  const times = [];
  let memory;
  for (let i = 0; i < RUNS; i++) {
    const run = await startOnce(i === RUNS - 1);
    times.push(run.readyMs);
    memory ??= run.memory;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`npm start -> /readyz 200 on an existing data dir, ${RUNS} runs (ms): ${times.map((t) => t.toFixed(0)).join(', ')}`);
  console.log(`  median ${median.toFixed(0)} ms, worst ${times.at(-1).toFixed(0)} ms   (goal < 3000 ms)`);
  console.log(`idle RSS after 3 s: node ${memory.node.toFixed(1)} MB (goal < 150 MB); embedded postgres processes ${memory.postgres.toFixed(1)} MB`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
