import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './http/logger.js';
import { DatabaseUnavailableError, openDatabase, type Database } from './db/database.js';
import { createApp, type App } from './app.js';
import { startWorkers, type Workers } from './worker/worker.runner.js';
import { compose } from './compose.js';
import { recordRunningService } from './cli/running-service.js';

/** `npm run worker`: only the workers, no HTTP (to scale them apart from the API). */
const workersOnly = process.argv.includes('--workers-only');

async function main() {
  const startedAt = performance.now();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);

  let db: Database | undefined;
  let app: App | undefined;
  let workers: Workers | undefined;
  let forgetRunningService: (() => void) | undefined;
  let stopping = false;

  // Order matters: stop taking requests and finish those in flight (and whatever else the app started: its timers run
  // queries of their own, and the pool cannot close under them), then the workers' attempts (or give their leases
  // back), then close the ORM, then stop PostgreSQL.
  const stopAll = async () => {
    if (app) {
      forgetRunningService?.();
      await app.stop();
      logger.info('http server closed');
    }
    await workers?.stop();
    await db?.close();
  };
  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    try {
      await stopAll();
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      exitCode ||= 1;
    }
    logger.flush();
    process.exit(exitCode);
  };
  // A terminal's Ctrl-C reaches npm and node alike and npm forwards it: one signal may arrive twice, so repeats
  // within a second are the same request. A later second signal stops waiting for open connections (PostgreSQL is
  // still stopped properly); a third exits at once.
  let firstSignalAt = 0;
  let signals = 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signals > 0 && Date.now() - firstSignalAt < 1_000) return;
      signals += 1;
      if (signals === 1) {
        firstSignalAt = Date.now();
        void shutdown(signal);
      } else if (signals === 2) {
        logger.warn({ signal }, 'second signal: closing open connections now');
        app?.httpServer.closeAllConnections();
      } else {
        logger.warn({ signal }, 'third signal: exiting now');
        process.exit(1);
      }
    });
  }
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled promise rejection');
    void shutdown('unhandledRejection', 1);
  });

  try {
    db = await openDatabase(config, logger);
  } catch (err) {
    fail(logger, 'the database could not be opened', err);
    return;
  }
  if (stopping) return;
  // One composition for the process: the app and its workers (or the workers alone) share it.
  const services = compose(config);
  if (workersOnly) {
    if (!config.workers) {
      fail(logger, 'npm run worker needs WORKERS above 0');
      return;
    }
    workers = await startWorkers({ orm: db.orm, logger, config, services });
    logger.info({ concurrency: config.workers, startupMs: Math.round(performance.now() - startedAt) }, 'ready: workers only');
    return;
  }
  try {
    app = await createApp({ orm: db.orm, logger, config, services });
    await app.listen(config.port, config.host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message =
      code === 'EADDRINUSE'
        ? `Port ${config.port} is already in use. Stop what uses it or set PORT to another port.`
        : code === 'EACCES'
          ? `Not allowed to listen on port ${config.port}. Set PORT to a port above 1024.`
          : code === 'EADDRNOTAVAIL'
            ? `HOST ${config.host} is not an address of this machine. Set HOST to one of its addresses, or leave it unset for all.`
            : undefined;
    await stopAll().catch(() => {});
    fail(logger, message ?? 'the HTTP server could not start', message ? undefined : err);
    return;
  }
  if (config.workers > 0 && !stopping) workers = await startWorkers({ orm: db.orm, logger, config, services });
  // The admin CLI beside this service (on its embedded database) prints links to this address, not to its defaults.
  if (db.embedded && !stopping) forgetRunningService = recordRunningService(config);
  // Pages that work offline: the portal, GraphiQL (served from the npm packages) and the home page listing every door.
  const links = { home: `${config.publicUrl}/`, portal: `${config.publicUrl}/portal`, graphiql: `${config.publicUrl}/graphiql` };
  logger.info(
    {
      port: config.port,
      ...links,
      graphql: `${config.publicUrl}/graphql`,
      database: db.embedded ? `embedded PostgreSQL on port ${db.embedded.port}` : 'DATABASE_URL',
      startupMs: Math.round(performance.now() - startedAt),
      rssMb: Math.round(process.memoryUsage.rss() / 1048576),
      heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1048576),
    },
    `ready: the portal at ${links.portal}, GraphiQL at ${links.graphiql}, every door on the home page ${links.home}`,
  );
}

/**
 * Start-up failures are printed once. A cause the operator can fix (a database that cannot be reached, a port in use,
 * a setting) is one plain line on stderr, which a person starting the service reads; anything unexpected is one JSON
 * record with its stack, for the logs.
 */
function fail(logger: Logger, message: string, err?: unknown) {
  if (err === undefined || err instanceof DatabaseUnavailableError || (err as Error).name === 'EmbeddedPostgresError') {
    const detail = err instanceof Error ? `\n${err.message}` : '';
    console.error(`Cannot start: ${message}${detail}`);
  } else {
    logger.fatal({ err }, `cannot start: ${message}`);
    logger.flush();
  }
  process.exit(1);
}

void main();
