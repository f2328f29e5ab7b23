import net from 'node:net';
import http from 'node:http';
import fs from 'node:fs';
import { freePort } from './helpers/ports.js';
import { postgresProcessesFor, startService, tempDataDir, waitForReady, runAdmin } from './helpers/process.js';
import { createTestDatabase } from './helpers/database.js';

// These start the real service as `npm start` does, on the embedded PostgreSQL in a temporary data dir.
import { jest } from '@jest/globals';
jest.setTimeout(120_000);

const messages = (logs: Array<Record<string, unknown>>) => logs.map((l) => l.msg);

describe('start-up refusals', () => {
  it('stops with exit code 2 and names the variable when the configuration is invalid', async () => {
    const service = startService({ PORT: 'eighty', LOG_LEVEL: 'loud', DATA_DIR: '/nonexistent' });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/PORT must be a TCP port.*"eighty"/);
    expect(service.output()).toMatch(/LOG_LEVEL must be one of/);
  });

  it('exits non-zero, quickly and clearly, when DATABASE_URL points nowhere', async () => {
    const started = Date.now();
    const service = startService({ PORT: String(await freePort()), DATABASE_URL: `postgresql://postgres:pw@127.0.0.1:${await freePort()}/nowhere` });
    expect(await service.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(service.output()).toMatch(/Cannot reach PostgreSQL at postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1/);
    expect(service.output()).not.toContain(':pw@');
    // Said once, as a plain line: not a line and then a JSON record with a stack.
    expect(service.output().match(/Cannot reach PostgreSQL/g)).toHaveLength(1);
    expect(service.output()).not.toContain('"stack"');
  });

  it('says which port is taken when PORT is in use', async () => {
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const db = await createTestDatabase();
    try {
      const service = startService({ PORT: String(port), DATABASE_URL: db.url });
      expect(await service.exited).toBe(1);
      expect(service.output()).toContain(`Port ${port} is already in use`);
      // Said once, with no stack trace from a part of the server before it.
      expect(service.output()).not.toMatch(/\n\s+at /);
      expect(service.output().match(/EADDRINUSE/g)).toBeNull();
    } finally {
      blocker.close();
      await db.drop();
    }
  });
});

describe('HOST', () => {
  it('listens on the address HOST names, and only there', async () => {
    const db = await createTestDatabase();
    const port = String(await freePort());
    const service = startService({ PORT: port, HOST: '127.0.0.2', DATABASE_URL: db.url, WORKERS: '0' });
    try {
      await waitForReady({ ...service, url: `http://127.0.0.2:${port}` });
      expect((await fetch(`http://127.0.0.2:${port}/healthz`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.3:${port}/healthz`)).rejects.toThrow();
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      await db.drop();
    }
  });
});

describe('embedded PostgreSQL lifecycle', () => {
  const dataDir = tempDataDir();
  const env = async () => ({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('starts on an empty data dir, finishes an in-flight request on SIGTERM, then closes the ORM, then stops PostgreSQL', async () => {
    const service = startService(await env());
    await waitForReady(service);
    expect(postgresProcessesFor(dataDir).length).toBeGreaterThan(0);

    // The ready line sends people to pages that work offline: the portal, GraphiQL and the home page (not Apollo
    // Sandbox, which loads from a CDN), at PUBLIC_URL's default, http://localhost:$PORT.
    const publicUrl = `http://localhost:${new URL(service.url).port}`;
    // /readyz answers once the port listens; the line follows when the workers have started.
    const readyLine = () => service.logs().find((l) => String(l.msg).startsWith('ready'));
    for (let i = 0; i < 100 && !readyLine(); i++) await new Promise((r) => setTimeout(r, 100));
    const ready = readyLine()!;
    expect(ready).toMatchObject({ portal: `${publicUrl}/portal`, graphiql: `${publicUrl}/graphiql`, home: `${publicUrl}/` });
    expect(ready.msg).toBe(`ready: the portal at ${publicUrl}/portal, GraphiQL at ${publicUrl}/graphiql, every door on the home page ${publicUrl}/`);
    // Each answers (asked as PUBLIC_URL's host, on a connection of its own: none left open for the drain below).
    // The service runs here from src/ (no build): the portal's page then says it is not built, which still shows the
    // link reaches the portal's route; npm start builds it, and the browser tests load it built.
    for (const link of [ready.portal, ready.graphiql, ready.home].map(String)) {
      const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) =>
        http
          .get(`${service.url}${new URL(link).pathname}`, { agent: false, headers: { host: new URL(link).host } }, (res) => {
            let body = '';
            res
              .setEncoding('utf8')
              .on('data', (c: string) => (body += c))
              .on('end', () => resolve({ status: res.statusCode, body }));
          })
          .on('error', reject),
      );
      const unbuiltPortal = link === ready.portal && answer.status === 503 && answer.body.startsWith('The portal is not built');
      expect([link, unbuiltPortal ? 200 : answer.status]).toEqual([link, 200]);
    }
    // Its address is left for the admin CLI run beside it (test/cli.test.ts), and removed when it stops.
    const record = `${dataDir}/running-service.json`;
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toEqual({
      pid: service.child.pid,
      PORT: new URL(service.url).port,
      PUBLIC_URL: publicUrl,
      SURVEY_URL: publicUrl,
    });

    // A request whose body is still arriving when the signal comes: it must still get its answer.
    const body = JSON.stringify({ query: '{ health { status } }' });
    const socket = net.connect(Number(new URL(service.url).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (c) => (response += c));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 200));

    service.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(service.child.exitCode).toBeNull(); // still draining
    const refused = await fetch(`${service.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).toBe('refused'); // no new connections once stopping
    socket.write(body.slice(5));
    await new Promise((r) => socket.once('close', r));
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain('"status":"ok"');

    expect(await service.exited).toBe(0);
    const order = messages(service.logs()).filter((m) =>
      ['shutting down', 'http server closed', 'database connections closed', 'embedded PostgreSQL stopped'].includes(String(m)),
    );
    expect(order).toEqual(['shutting down', 'http server closed', 'database connections closed', 'embedded PostgreSQL stopped']);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
    expect(fs.existsSync(record)).toBe(false);
  });

  it('recovers after kill -9: the orphaned postmaster is stopped, the data is still there', async () => {
    const first = startService(await env());
    await waitForReady(first);
    const created = await runAdmin(['create-user', '--email', 'Survivor@Example.com', '--password', 'long enough'], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const userId = JSON.parse(created.stdout).data.id;

    first.child.kill('SIGKILL');
    await first.exited;
    expect(postgresProcessesFor(dataDir).length).toBeGreaterThan(0); // the orphan

    const second = startService(await env());
    await waitForReady(second);
    expect(messages(second.logs())).toContainEqual(expect.stringMatching(/^stopping an orphaned PostgreSQL \(pid \d+\)/));
    expect(messages(second.logs())).toContainEqual(expect.stringMatching(/^orphaned PostgreSQL \(pid \d+\) stopped/));
    // Levels by name, as log collectors read them.
    expect(second.logs()[0].level).toBe('info');
    // The user written before the crash is still there: a business can be created for it.
    const business = await runAdmin(['create-business', '--name', 'After the crash', '--owner', userId], { DATA_DIR: dataDir });
    expect(business.code).toBe(0);
    expect(JSON.parse(business.stdout).data.owner).toBe(userId);

    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('refuses to start a second server on a data dir that a running one uses', async () => {
    const first = startService(await env());
    await waitForReady(first);
    try {
      const second = startService(await env());
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/in use by process \d+ \(is the service already running\?\)/);
      await waitForReady(first); // the first one is untouched
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });
});
