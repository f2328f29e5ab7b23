import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REGISTER = ['--import', '@swc-node/register/esm-register'];

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** The JSON log records printed so far. */
  logs(): Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * The child's exit code, once what it wrote has been read: 'exit' can come before the last output arrives through the
 * pipes. Bounded, because a grandchild (PostgreSQL after a kill -9) may hold the pipes open.
 */
export function exitOf(child: ChildProcess): Promise<number | null> {
  const drained = (stream: Readable | null) => new Promise<void>((r) => (!stream || stream.readableEnded ? r() : stream.once('end', () => r())));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      void Promise.race([Promise.all([drained(child.stdout), drained(child.stderr)]), new Promise((r) => setTimeout(r, 2_000))]).then(() => resolve(code));
    }),
  );
}

/** `src/main.ts` as a real child process, as `npm start` runs it. */
export function startService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [...REGISTER, 'src/main.ts'], {
    cwd: ROOT,
    env: { ...cleanEnv(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = exitOf(child);
  return {
    child,
    url: `http://127.0.0.1:${env.PORT}`,
    output: () => output,
    logs: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    exited,
  };
}

/** The environment of the test run minus what would change the service's behaviour. */
function cleanEnv() {
  const env = { ...process.env };
  for (const key of ['DATABASE_URL', 'NODE_OPTIONS', 'PORT', 'DATA_DIR', 'EMBEDDED_PG_PORT', 'LOG_LEVEL', 'PUBLIC_URL', 'SURVEY_URL']) delete env[key];
  return { ...env, ...captureEnv() };
}

/**
 * What a spawned service process needs for the statement check (test/statements/statement-check.ts) to see what it
 * sends: the capture preloaded, when the run captures.
 */
export function captureEnv(): Record<string, string> {
  if (!process.env.STATEMENT_CAPTURE_DIR) return {};
  return { NODE_OPTIONS: `--import=${pathToFileURL(path.join(ROOT, 'test/setup/statement-capture.preload.mjs'))}` };
}

/**
 * Until /readyz answers 200. 45 s: a first start runs initdb and compiles every source through swc, which takes a
 * few seconds on a quiet machine and far longer on two loaded cores. A service that never gets ready is killed, so a
 * failed test leaves no process (or PostgreSQL) behind.
 */
export async function waitForReady(service: ServiceProcess, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`service exited early:\n${service.output()}`);
    try {
      const res = await fetch(`${service.url}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  service.child.kill('SIGTERM');
  throw new Error(`service not ready after ${timeoutMs} ms:\n${service.output()}`);
}

/** Runs the admin CLI to completion, or until `interruptWhen` holds for its stderr so far (then Ctrl-C: SIGINT). */
export async function runAdmin(
  args: string[],
  env: Record<string, string>,
  options: { interruptWhen?: (stderr: string) => boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--no-warnings', ...REGISTER, 'src/cli/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  let interrupted = false;
  child.stderr.on('data', (c) => {
    stderr += c;
    if (!interrupted && options.interruptWhen?.(stderr)) interrupted = child.kill('SIGINT');
  });
  const code = await exitOf(child);
  return { code, stdout, stderr };
}

/** postgres processes whose command line mentions this directory. */
export function postgresProcessesFor(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('postgres') && line.includes(dir));
}

export function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-data-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}
