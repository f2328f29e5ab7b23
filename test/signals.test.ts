import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { jest } from '@jest/globals';
import { freePort } from './helpers/ports.js';
import { captureEnv, exitOf, postgresProcessesFor, tempDataDir } from './helpers/process.js';

// Supervisors (systemd, Docker, Kubernetes, pm2) signal the process they started: here that is npm, not node.
jest.setTimeout(180_000);
const ROOT = path.resolve(import.meta.dirname, '..');

/** The children of a process (by parent pid). */
function childrenOf(pid: number): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([child]) => child);
}

/** Running, and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .startsWith('Z');
  } catch {
    return false;
  }
}

function npmStart(env: Record<string, string>) {
  const clean = { ...process.env };
  for (const key of ['DATABASE_URL', 'NODE_OPTIONS', 'PORT', 'DATA_DIR', 'EMBEDDED_PG_PORT', 'LOG_LEVEL', 'PUBLIC_URL', 'NODE_ENV', 'REDIS_URL'])
    delete clean[key];
  const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...clean, ...captureEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = exitOf(child);
  return { child, exited, output: () => output };
}

async function ready(url: string, service: ReturnType<typeof npmStart>) {
  for (let i = 0; i < 900; i++) {
    if (service.child.exitCode !== null) throw new Error(`npm start exited early:\n${service.output()}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready:\n${service.output()}`);
}

describe('npm start under a supervisor', () => {
  const dataDir = tempDataDir();
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it.each(['SIGTERM', 'SIGINT'] as const)('%s sent to the npm process stops the service, its PostgreSQL and npm', async (signal) => {
    const port = await freePort();
    const service = npmStart({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()) });
    try {
      await ready(`http://127.0.0.1:${port}`, service);
      // npm runs the script's shell, which execs node: the service is npm's own child.
      const node = childrenOf(service.child.pid!);
      expect(node).toHaveLength(1);
      expect(postgresProcessesFor(dataDir).length).toBeGreaterThan(0);

      service.child.kill(signal);
      expect(await service.exited).toBe(0);
      expect(running(node[0])).toBe(false);
      expect(postgresProcessesFor(dataDir)).toEqual([]);
      expect(service.output()).toContain('"msg":"embedded PostgreSQL stopped"');
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  });
});
