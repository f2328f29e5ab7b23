// Several service processes on one database, as a deployment runs them: API processes as `npm start` runs the built
// service, worker processes as `npm run worker` does (the node arguments read from package.json's scripts). Each
// writes its output to a file of its own; CPU times come from /proc. Loopback only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cpuSeconds, freePort, nodeBin, root, sleep, startArgs } from './service.js';

/**
 * `logDir`: where each process's output goes (`<name>.log`). `env`: what every process gets, on top of this one's
 * environment. Processes are started with `api(env)` and `worker(env)`; `stopAll()` ends them, `killAllSync()` too
 * (for an 'exit' handler).
 */
export function fleet({ logDir, env }) {
  const members = [];
  // The last CPU reading of each process: a killed process's /proc entry goes, its CPU time stays counted.
  const lastCpu = new Map();

  function launch(name, args, extraEnv) {
    const log = path.join(logDir, `${name}.log`);
    const out = fs.openSync(log, 'a');
    const child = spawn(nodeBin, args, { cwd: root, env: { ...process.env, ...env, ...extraEnv }, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const member = {
      name,
      child,
      log,
      output: () => fs.readFileSync(log, 'utf8'),
      /** CPU seconds (user + system) so far. */
      cpu() {
        const now = child.exitCode === null && child.signalCode === null ? cpuSeconds(child.pid) : 0;
        if (now > 0) lastCpu.set(child.pid, now);
        return lastCpu.get(child.pid) ?? 0;
      },
    };
    members.push(member);
    return member;
  }

  async function until(member, ready, what, timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await ready())) {
      if (member.child.exitCode !== null) throw new Error(`${member.name} exited during start:\n${member.output().slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`${member.name} was not ${what} within ${timeoutMs / 1000} s:\n${member.output().slice(-3000)}`);
      await sleep(100);
    }
  }

  return {
    members,
    /** An API process (its own PORT): resolves once /readyz answers 200. */
    async api(name, extraEnv = {}) {
      const port = await freePort();
      const member = launch(name, startArgs('start'), { PORT: String(port), ...extraEnv });
      member.port = port;
      member.base = `http://127.0.0.1:${port}`;
      await until(
        member,
        () =>
          fetch(`${member.base}/readyz`)
            .then((res) => res.status === 200)
            .catch(() => false),
        'ready',
      );
      return member;
    },
    /** A worker process: resolves once it logs that it is ready (it has no HTTP port). */
    async worker(name, extraEnv = {}) {
      const member = launch(name, startArgs('worker'), { LOG_LEVEL: 'info', ...extraEnv });
      await until(member, async () => member.output().includes('ready: workers only'), 'ready');
      return member;
    },
    /** SIGTERM to every live process, then SIGKILL to those still running after `graceMs`. */
    async stopAll(graceMs = 15_000) {
      const alive = () => members.filter((m) => m.child.exitCode === null && m.child.signalCode === null);
      for (const m of alive()) m.child.kill('SIGTERM');
      const deadline = Date.now() + graceMs;
      while (alive().length && Date.now() < deadline) await sleep(100);
      for (const m of alive()) m.child.kill('SIGKILL');
    },
    killAllSync() {
      for (const m of members) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    },
  };
}
