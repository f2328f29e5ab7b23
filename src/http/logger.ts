import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

/** JSON lines on stdout: one record per request, plus start-up and shutdown milestones. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'feedback-service' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // "level":"info" rather than pino's 30: readable as it is, and what most log collectors expect.
    formatters: { level: (label) => ({ level: label }) },
    // A request body or an Authorization header must never reach the logs, even by mistake.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'password', '*.password'], censor: '[redacted]' },
  });
}

/**
 * Bearer capabilities that ride in paths, and the name the logs show instead: a feedback request's short link is the
 * key to that request (open it, unsubscribe its guest), an alert recipient's link the key to its consent. Queries are
 * never logged, so paths are all there is to cover.
 */
const CAPABILITY_PATHS: ReadonlyArray<[RegExp, string]> = [
  [/^\/r\/[^/]+/, '/r/:token'],
  [/^\/alerts\/[^/]+/, '/alerts/:token'],
];

/** A request path as the logs may show it. */
export function loggedPath(path: string): string {
  return CAPABILITY_PATHS.reduce((shown, [pattern, name]) => shown.replace(pattern, name), path);
}

export type { Logger };
