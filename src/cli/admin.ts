import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { AppError } from '../shared/errors.js';
import { stringifyWithMillis } from '../shared/timestamps.js';
import { UsageError, type AdminCommand } from './command.js';
import { configBesideRunningService } from './running-service.js';
import { createUserCommand } from './users.command.js';
import { createBusinessCommand } from './businesses.command.js';
import { createCredentialCommand } from './credentials.command.js';
import { connectCustomCommand } from './integrations.command.js';
import { demoCommand } from './demo.command.js';
import { rotateKeysCommand } from './rotate-keys.command.js';
import { addMemberCommand, removeMemberCommand } from './members.command.js';
import { rebuildAnalyticsCommand } from './analytics.command.js';
import { feedbackSendersCommand } from './feedback.command.js';
import { heldSmsCommand } from './held-sms.command.js';
import { analyseAnswersCommand } from './text-analysis.command.js';

/**
 * `npm run admin -- <command> [options]`: JSON on stdout, messages on stderr; exit 0 on success, 2 on bad arguments
 * (including input the service refuses), 1 when something else failed. Works with the server running (it reuses the
 * embedded PostgreSQL the server started, and builds its links with the server's PORT, PUBLIC_URL and SURVEY_URL unless
 * given its own) or not (it starts and stops one itself).
 */
export const commands: AdminCommand[] = [
  createUserCommand,
  createBusinessCommand,
  createCredentialCommand,
  connectCustomCommand,
  demoCommand,
  rotateKeysCommand,
  addMemberCommand,
  removeMemberCommand,
  rebuildAnalyticsCommand,
  feedbackSendersCommand,
  heldSmsCommand,
  analyseAnswersCommand,
];

function help(): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return ['Usage: npm run admin -- <command> [options]', '', ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)].join('\n');
}

/** Dates as milliseconds since the epoch, as the API shows them. */
const json = (value: unknown) => stringifyWithMillis(value, 2);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.error(help());
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`Unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\nUsage: npm run admin -- ${command.usage}`);
    return 2;
  }

  let db: Database | undefined;
  try {
    let config = loadConfig();
    db = await openDatabase(config, undefined, { reuseRunning: true });
    if (db.embedded && !db.embedded.owned) config = configBesideRunningService(config);
    const result = await command.run(values, db.orm, config);
    process.stdout.write(`${json(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\nUsage: npm run admin -- ${command.usage}`);
      return 2;
    }
    if (err instanceof AppError && err.status < 500) {
      console.error(`${command.name}: ${err.message}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    console.error(`${command.name} failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
