import { AppError } from './errors.js';

/**
 * pg-pool's words when no connection came in time (the pool's `connectionTimeoutMillis`): none came free while the
 * statement waited, or a new one did not finish connecting. The driver's own text, kept as is by MikroORM's
 * DriverException and by Kysely; a test (test/database-unavailable.test.ts) holds them to the installed pg-pool.
 */
const NO_CONNECTION_IN_TIME = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'];

/** What a client is told to wait before trying again, in seconds. */
const RETRY_AFTER_S = 2;

/** The error, or one of its causes, says that no database connection could be had in time. */
function noConnectionInTime(thrown: unknown): boolean {
  let err = thrown;
  for (let depth = 0; err instanceof Error && depth < 5; depth++) {
    const { message } = err;
    if (NO_CONNECTION_IN_TIME.some((words) => message.startsWith(words))) return true;
    err = err.cause;
  }
  return false;
}

/**
 * A request that could not get a database connection in time: the service is busy (or its database out of reach) for
 * now, not broken, and the client may try again: 503 with Retry-After, never a 500.
 */
export function unavailableFromDatabase(thrown: unknown): AppError | undefined {
  if (!noConnectionInTime(thrown)) return undefined;
  return new AppError('unavailable', `The service is busy (no database connection in time): retry after ${RETRY_AFTER_S} s`, undefined, {
    'Retry-After': String(RETRY_AFTER_S),
  });
}
