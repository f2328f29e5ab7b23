/**
 * All configuration comes from the environment, read and validated once at start. A bad value stops the process
 * with a message naming the variable, rather than failing later somewhere far from the cause.
 */
export interface Config {
  port: number;
  databaseUrl?: string;
  publicUrl: string;
  surveyUrl: string;
  logLevel: LogLevel;
  embeddedPgPort: number;
  dataDir: string;
  /** Delivery attempts this process runs at once; 0 = no workers in this process (API only). */
  workers: number;
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  /** Delay before each retry, in ms; its length is the number of retries. */
  retrySchedule: number[];
  /** Lets webhooks target loopback and private addresses (never link-local or cloud metadata): tests, local setups. */
  allowPrivateNetworks: boolean;
  /** Attempts per second per webhook. */
  ratePerSecond: number;
}

/** Stripe-like: about 3 days in all. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1s,2s,5m`: each a positive number and a unit (ms, s, m, h, d). */
export function parseDurations(raw: string): number[] | undefined {
  const parts = raw.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part);
    if (!m) return undefined;
    out.push(Math.round(Number(m[1]) * DURATION_UNITS[m[2]]));
  }
  return out.length && out.length <= 50 ? out : undefined;
}

function count(env: Env, name: string, fallback: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    problems.push(`${name} must be an integer from 0 to ${max}, got "${raw}"`);
    return fallback;
  }
  return Number(raw);
}

function flag(env: Env, name: string, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name} must be true or false, got "${env[name]}"`);
  return false;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) {
    problems.push(`${name} must be a TCP port between 1 and 65535, got "${raw}"`);
    return fallback;
  }
  return n;
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[], problems: string[]) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL, got "${redact(raw)}"`);
    }
  } catch {
    problems.push(`${name} is not a valid URL: "${redact(raw)}"`);
  }
  // Links are built by appending paths: keep one canonical form without the trailing slash.
  return raw.replace(/\/+$/, '');
}

/** Never echo a database password into logs. */
function redact(raw: string) {
  return raw.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const listenPort = port(env, 'PORT', 4000, problems);
  const embeddedPgPort = port(env, 'EMBEDDED_PG_PORT', 54329, problems);
  const databaseUrl = url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:'], problems);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${listenPort}`, ['http:', 'https:'], problems)!;
  const surveyUrl = url(env, 'SURVEY_URL', publicUrl, ['http:', 'https:'], problems)!;
  const rawLevel = (env.LOG_LEVEL?.trim() || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(rawLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const retrySchedule = parseDurations(env.WEBHOOK_RETRY_SCHEDULE?.trim() || DEFAULT_RETRY_SCHEDULE);
  if (!retrySchedule) {
    problems.push(`WEBHOOK_RETRY_SCHEDULE must be comma-separated durations such as "5s,5m,2h" (units ms, s, m, h, d; at most 50), got "${env.WEBHOOK_RETRY_SCHEDULE}"`);
  }
  const workers = count(env, 'WORKERS', 64, 1000, problems);
  const ratePerSecond = count(env, 'WEBHOOK_RATE_LIMIT', 10, 100_000, problems);
  if (ratePerSecond === 0) problems.push('WEBHOOK_RATE_LIMIT must be at least 1');
  const allowPrivateNetworks = flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    port: listenPort,
    databaseUrl,
    publicUrl,
    surveyUrl,
    logLevel: rawLevel as LogLevel,
    embeddedPgPort,
    dataDir: env.DATA_DIR?.trim() || '.data',
    workers,
    webhooks: { retrySchedule: retrySchedule!, allowPrivateNetworks, ratePerSecond },
  };
}

export { redact as redactUrl };
