// Starts the service for a bench exactly as `npm start` runs it (built JavaScript, same node flags, production
// mode), on a throwaway data dir or DATABASE_URL, and stops it. Loopback only.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import autocannon from 'autocannon';

export const root = path.resolve(import.meta.dirname, '../..');
export const nodeBin = path.join(root, 'node_modules', '.bin', 'node');

export const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One autocannon run, quietly (no progress bar or tables): resolves with its result. */
export function loadPhase(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/** CPU used between two `service.cpu()` readings, per unit of work, as a line: "node 1.2 ms + postgres 0.8 ms per order". */
export function cpuPer(before, after, count, unit) {
  const ms = (k) => (((after[k] - before[k]) * 1000) / count).toFixed(2);
  return `CPU per ${unit}: node ${ms('node')} ms + postgres ${ms('postgres')} ms`;
}

/** The node flags of package.json's start script (without the script): what other servers of a bench run with. */
export const nodeFlags = () => startArgs().slice(0, -1);

/** Extra node flags from the environment variable `name` (space-separated), put before the start script's own. */
export const extraNodeArgs = (name) => process.env[name]?.split(/\s+/).filter(Boolean) ?? [];

/** The node arguments of a package.json script (`start`, `worker`), read from it so the two cannot drift apart. */
export function startArgs(name = 'start') {
  const script = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts[name];
  const last = script.split('&&').at(-1).trim().split(/\s+/);
  return last.slice(last.indexOf('node') + 1);
}

const TICKS_PER_SECOND = 100; // Linux USER_HZ, what /proc/<pid>/stat counts in

/** CPU seconds used by a process (user + system), and with `children` also by its children it has reaped. */
export function cpuSeconds(pid, children = false) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // After the command: state is field 3, so utime/stime/cutime/cstime (14-17) sit at 11-14 here.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return (utime + stime + (children ? cutime + cstime : 0)) / TICKS_PER_SECOND;
  } catch {
    return 0; // gone meanwhile
  }
}

/** The PostgreSQL server's CPU seconds so far: the postmaster, its live backends and those that already exited. */
export function postgresCpu(postmaster) {
  let total = cpuSeconds(postmaster, true);
  for (const pid of fs.readdirSync('/proc').filter((f) => /^\d+$/.test(f))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(postmaster)) total += cpuSeconds(pid);
    } catch {
      /* gone meanwhile */
    }
  }
  return total;
}

/**
 * Bytes a process allocates, read from V8's `--trace-gc-nvp` lines on its stdout (each GC prints `allocated=`, the
 * bytes allocated since the previous one). `bytes()` is the running sum; GC traces cost little next to the GCs.
 * Also running sums of `promoted()` bytes (what young collections found alive and moved to the old generation: what
 * a request keeps reachable after its answer shows here first) and of GC pauses (`pauseMs()`).
 */
export function allocationMeter(child) {
  let total = 0;
  let promoted = 0;
  let pause = 0;
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const m = line.match(/ pause=([\d.]+) .* gc=(\w+) .* allocated=(\d+) promoted=(\d+)/);
      if (!m) continue;
      pause += Number(m[1]);
      total += Number(m[3]);
      if (m[2] === 's') promoted += Number(m[4]);
    }
  });
  return { bytes: () => total, promoted: () => promoted, pauseMs: () => pause };
}

/** CPU time (user + system) a process has used so far, in ms. */
export const cpuMs = (pid) => cpuSeconds(pid) * 1000;

/**
 * Starts the service for a bench. `limitSeconds`: past it the bench is stopped (service and PostgreSQL with it) and
 * exits 1, so a stuck bench never runs on; `stop()` clears it. Use as `try { ... } finally { await service.stop(); }`:
 * a failure then still stops the service, and the top-level rejection exits non-zero.
 * `traceGc`: run with --trace-gc-nvp and measure allocation (service.allocation.bytes()).
 */
export async function startService(name, extraEnv = {}, { limitSeconds, traceGc = false } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    // A bench drives one tenant far past its quotas (100/s by default): raised out of the way unless set, so the
    // limiters still count every request without refusing any (0 turns one off; bench/rate-limit.js compares).
    RATE_LIMIT_API_PER_SECOND: process.env.RATE_LIMIT_API_PER_SECOND ?? '1000000',
    RATE_LIMIT_WEBHOOK_PER_SECOND: process.env.RATE_LIMIT_WEBHOOK_PER_SECOND ?? '1000000',
    ...extraEnv,
  };
  execFileSync(nodeBin, ['scripts/build.js'], { cwd: root, env, stdio: 'inherit' });
  // BENCH_NODE_ARGS: extra node flags for the service only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const nodeArgs = [...extraNodeArgs('BENCH_NODE_ARGS'), ...(traceGc ? ['--trace-gc-nvp'] : []), ...startArgs()];
  const child = spawn(nodeBin, nodeArgs, { cwd: root, env, stdio: ['ignore', traceGc ? 'pipe' : 'ignore', 'inherit'] });
  const allocation = traceGc ? allocationMeter(child) : { bytes: () => NaN, promoted: () => NaN, pauseMs: () => NaN };
  const base = `http://127.0.0.1:${port}`;
  // Up to 120 s: on two cores shared with other work, start-up can be slow. A service that never gets ready is stopped,
  // with its PostgreSQL, rather than left running after the bench gives up.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error('the service exited during start');
    if (i > 2400) {
      // Not left running: SIGTERM stops it and its embedded PostgreSQL.
      child.kill('SIGTERM');
      throw new Error('the service did not become ready within 120 s');
    }
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  /** The admin CLI against this service's database; returns its parsed JSON. */
  const admin = adminCli(env);
  const deadline =
    limitSeconds &&
    setTimeout(async () => {
      console.error(`bench/${name}: took more than ${limitSeconds} s, stopping`);
      await stop();
      process.exit(1);
    }, limitSeconds * 1000);
  async function stop() {
    clearTimeout(deadline);
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      for (let i = 0; i < 150 && child.exitCode === null; i++) await sleep(100);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  /** The service's database: DATABASE_URL, or the embedded PostgreSQL's (its password is kept in DATA_DIR). */
  const databaseUrl = () => {
    if (env.DATABASE_URL) return env.DATABASE_URL;
    const { password } = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-pg.json'), 'utf8'));
    return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/app`;
  };
  return {
    base,
    port,
    stop,
    env,
    allocation,
    databaseUrl,
    dataDir,
    child,
    admin,
    /**
     * CPU seconds the service (node) and its embedded PostgreSQL have used so far: take two readings around a phase.
     * On a machine shared with other work, CPU per request moves far less than requests per second do.
     */
    cpu() {
      const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
      const postmaster = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined;
      return { node: cpuSeconds(child.pid), postgres: postmaster ? postgresCpu(postmaster) : 0 };
    },
    ...tenants(base, admin),
  };
}

/** The admin CLI with `env` (its DATABASE_URL, or DATA_DIR for an embedded database); returns its parsed JSON. */
export const adminCli =
  (env) =>
  (...args) =>
    JSON.parse(
      execFileSync(nodeBin, ['--no-warnings', '--import', '@swc-node/register/esm-register', 'src/cli/admin.ts', ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
      }),
    );

/** A client_credentials access token of `credential` with `scope`, asked of the service at `base`; throws when refused. */
export async function clientToken(base, credential, scope) {
  const ask = () =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials', clientId: credential.clientId, clientSecret: credential.clientSecret, scope }),
    });
  // A caller blocked (by the admin CLI) for longer than the service keeps an idle connection: the kept-alive socket may
  // be closed just as it is reused ("other side closed"). Asking again is harmless: a token more is minted.
  const res = await ask().catch((err) => (err.cause?.code === 'UND_ERR_SOCKET' ? ask() : Promise.reject(err)));
  const { accessToken } = await res.json();
  if (!accessToken) throw new Error(`no token: ${res.status}`);
  return accessToken;
}

/** Tenants for a bench: made with the admin CLI `admin`, their tokens asked of the service at `base`. */
export function tenants(base, admin) {
  /** A client-credentials token with `scope` for an existing business (a new credential each time). */
  const businessToken = async (businessId, scope) => {
    const credential = admin('create-credential', '--business', businessId, '--name', 'Bench', '--redirect-uri', 'http://localhost/cb').data;
    const accessToken = await clientToken(base, credential, scope);
    return { accessToken, business: { id: businessId } };
  };
  return {
    businessToken,
    /** A new user, business and credential, and a client_credentials access token with these scopes. */
    async tenantToken(scope) {
      const user = admin('create-user', '--email', `bench-${Date.now()}@example.com`, '--password', 'bench password 123').data;
      const business = admin('create-business', '--name', 'Bench Cafe', '--owner', user.id).data;
      return { ...(await businessToken(business.id, scope)), business };
    },
  };
}
