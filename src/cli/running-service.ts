import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { isAlive } from '../shared/process-alive.js';

/**
 * The addresses of a service running on the embedded database, so that the admin CLI run beside it (in another
 * terminal, without the service's PORT or PUBLIC_URL) prints links to that service rather than to the defaults.
 * The service writes `running-service.json` in its data dir once it listens and removes it when it stops; the CLI
 * reads it only when it reuses that service's PostgreSQL, and only if the process that wrote it is still alive.
 */
const FILE = 'running-service.json';

/** What the CLI needs to build the same links: the variables behind them, as the service resolved them. */
interface RunningService {
  pid: number;
  PORT: string;
  PUBLIC_URL: string;
  SURVEY_URL: string;
}

/** The variables an operator sets to say where the service is: when the CLI is given any, it takes them as they are. */
const ADDRESS_VARIABLES = ['PORT', 'PUBLIC_URL', 'SURVEY_URL'] as const;

/** Written by the service once it listens; the function it returns removes the file (if it is still this process's). */
export function recordRunningService(config: Pick<Config, 'dataDir' | 'port' | 'publicUrl' | 'surveyUrl'>): () => void {
  const file = path.resolve(config.dataDir, FILE);
  const record: RunningService = { pid: process.pid, PORT: String(config.port), PUBLIC_URL: config.publicUrl, SURVEY_URL: config.surveyUrl };
  try {
    fs.writeFileSync(file, `${JSON.stringify(record)}\n`);
  } catch {
    return () => {}; // the links of the CLI beside it fall back to its own environment: nothing worse
  }
  return () => {
    if (readRecord(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

/**
 * The configuration the CLI builds links with: its own environment when that says where the service is (any of
 * PORT, PUBLIC_URL, SURVEY_URL), else the running service's addresses when there is one, else the defaults.
 */
export function configBesideRunningService(config: Config, env: NodeJS.ProcessEnv = process.env): Config {
  if (ADDRESS_VARIABLES.some((name) => env[name]?.trim())) return config;
  const record = readRecord(path.resolve(config.dataDir, FILE));
  if (!record || !isAlive(record.pid)) return config;
  return loadConfig({ ...env, PORT: record.PORT, PUBLIC_URL: record.PUBLIC_URL, SURVEY_URL: record.SURVEY_URL });
}

function readRecord(file: string): RunningService | undefined {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as RunningService;
    return Number.isInteger(record.pid) && ADDRESS_VARIABLES.every((name) => typeof record[name] === 'string') ? record : undefined;
  } catch {
    return undefined;
  }
}
