import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ParseArgsConfig } from 'node:util';
import { loadConfig, type Config } from '../config.js';

/** One admin CLI command: `npm run admin -- <name> [options]`. Its result is printed as JSON on stdout. */
export interface AdminCommand {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * `config`: the CLI's, with the addresses of the server it runs beside (src/cli/running-service.ts); by default the
   * environment's.
   */
  run(values: Record<string, string | boolean | string[] | undefined>, orm: MikroORM, config?: Config): Promise<unknown>;
}

/** A command's work, on an entity manager of its own (a fork of the ORM's). */
type Run = (values: Parameters<AdminCommand['run']>[0], em: EntityManager, config: Config) => Promise<unknown>;

/**
 * A command declared by its usage line alone: the name is its first word and the options are the flags it names,
 * each taking a value; a flag named twice (`--x A [--x B ...]`) may be repeated. The usage shown and the options
 * parsed cannot drift apart.
 */
export function adminCommand({ usage, summary, run }: { usage: string; summary: string; run: Run }): AdminCommand {
  const [name] = usage.split(' ');
  const flags = [...usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]);
  const options: AdminCommand['options'] = {};
  for (const flag of flags) options[flag] = flags.indexOf(flag) === flags.lastIndexOf(flag) ? { type: 'string' } : { type: 'string', multiple: true };
  return { name, summary, usage, options, run: (values, orm, config = loadConfig()) => run(values, orm.em.fork(), config) };
}

/** Bad arguments: the CLI prints the message and the usage, and exits with 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}
