import 'reflect-metadata';
import type { MikroORM, Options } from '@mikro-orm/postgresql';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/http/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startWorkers, type Workers } from '../../src/worker/worker.runner.js';
import { compose } from '../../src/compose.js';
import type { Services } from '../../src/kit/graphql/context.js';

export interface TestServer {
  url: string;
  orm: MikroORM;
  db: TestDatabase;
  app: App;
  config: Config;
  /** The composition the app and its workers share (src/compose.ts): a test's own workers are given it too. */
  services: Services;
  workers?: Workers;
  /** POST /graphql with a JSON body; returns status and parsed body. */
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * The API rate limit is off unless a test sets it (test/rate-limits.test.ts does, and API_LIMIT_ON turns it back on): a file's requests weigh a
 * deterministic amount, but how many seconds of refill they spread over depends on the machine, so a limit a test is
 * not about would pass on one machine and refuse on another.
 */
const TEST_DEFAULTS = { RATE_LIMIT_API_PER_SECOND: '0' };
/** For a test about what the limit adds to an answer (`extensions.cost`, the RateLimit fields): the service's default. */
export const API_LIMIT_ON = { RATE_LIMIT_API_PER_SECOND: undefined };

/**
 * The real app on a real port, over its own database. TEST_LOG=debug shows the service's logs. `env` adds
 * configuration (WEBHOOK_ALLOW_PRIVATE_NETWORKS...); `workers` also runs the job queue's workers, as npm start does;
 * `port` listens there instead of any free port (when PUBLIC_URL must name the real address, as the portal's does);
 * `host` on another loopback address than 127.0.0.1 (`::1`: clients over IPv6); `logger` receives the service's logs
 * instead (a test that reads them); `orm` changes the ORM's configuration (a smaller pool, a shorter wait for a
 * connection).
 */
export async function startTestServer(
  options: { env?: Record<string, string | undefined>; workers?: boolean; port?: number; host?: string; logger?: Logger; orm?: Partial<Options> } = {},
): Promise<TestServer> {
  const db = await createTestDatabase({ orm: options.orm });
  const config = loadConfig({
    ...TEST_DEFAULTS,
    ...process.env,
    ...options.env,
    DATABASE_URL: db.url,
    PORT: '4000',
    LOG_LEVEL: process.env.TEST_LOG ?? 'silent',
  });
  const logger = options.logger ?? createLogger(config.logLevel);
  const services = compose(config);
  const app = await createApp({ orm: db.orm, logger, config, services });
  const workers = options.workers ? await startWorkers({ orm: db.orm, logger, config, services }) : undefined;
  const host = options.host ?? '127.0.0.1';
  const port = await app.listen(options.port ?? 0, host);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    orm: db.orm,
    db,
    app,
    config,
    services,
    async graphql(query, variables, headers = {}) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: await res.json() };
    },
    workers,
    async stop() {
      await app.stop();
      await workers?.stop();
      await db.drop();
    },
  };
}

/**
 * This file's server, started before its tests and stopped after them; `ready` receives it (and may prepare a
 * tenant or a business) before the first test runs.
 */
export function useTestServer(ready: (server: TestServer) => unknown, options: Parameters<typeof startTestServer>[0] = {}): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    await ready(server);
  });
  // A stop waits for requests still being handled (up to 10 s for Apollo's drain and 10 s for the app's), more than
  // jest's default 30 s for a hook on a loaded machine: seen once, on a fresh CI clone's first run.
  afterAll(() => server?.stop(), 60_000);
}
