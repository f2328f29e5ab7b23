// Starts the service for a bench exactly as `npm start` runs it (built JavaScript, same node flags, production
// mode), on a throwaway data dir or DATABASE_URL, and stops it. Loopback only.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

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

/** The node arguments of package.json's start script, read from it so the two cannot drift apart. */
function startArgs() {
  const script = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const last = script.split('&&').at(-1).trim().split(/\s+/);
  return last.slice(last.indexOf('node') + 1);
}

export async function startService(name, extraEnv = {}) {
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
    ...extraEnv,
  };
  execFileSync(nodeBin, ['scripts/build.js'], { cwd: root, env, stdio: 'inherit' });
  const child = spawn(nodeBin, startArgs(), { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error('the service exited during start');
    if (i > 600) throw new Error('the service did not become ready within 30 s');
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  /** The admin CLI against this service's database; returns its parsed JSON. */
  const admin = (...args) =>
    JSON.parse(
      execFileSync(nodeBin, ['--no-warnings', '--import', '@swc-node/register/esm-register', 'src/cli/admin.ts', ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
      }),
    );
  return {
    base,
    port,
    env,
    dataDir,
    child,
    admin,
    /** A new user, business and credential, and a client_credentials access token with these scopes. */
    async tenantToken(scope) {
      const user = admin('create-user', '--email', `bench-${Date.now()}@example.com`, '--password', 'bench password 123').data;
      const business = admin('create-business', '--name', 'Bench Cafe', '--owner', user.id).data;
      const credential = admin('create-credential', '--business', business.id, '--name', 'Bench', '--redirect-uri', 'http://localhost/cb').data;
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials', clientId: credential.clientId, clientSecret: credential.clientSecret, scope }),
      });
      const { accessToken } = await res.json();
      if (!accessToken) throw new Error(`no token: ${res.status}`);
      return { accessToken, business };
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        for (let i = 0; i < 150 && child.exitCode === null; i++) await sleep(100);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
