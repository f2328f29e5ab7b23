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
  if (problems.length) throw new ConfigError(problems);
  return {
    port: listenPort,
    databaseUrl,
    publicUrl,
    surveyUrl,
    logLevel: rawLevel as LogLevel,
    embeddedPgPort,
    dataDir: env.DATA_DIR?.trim() || '.data',
  };
}

export { redact as redactUrl };
