import type { MikroORM } from '@mikro-orm/postgresql';
import type { ParseArgsConfig } from 'node:util';

/** One admin CLI command: `npm run admin -- <name> [options]`. Its result is printed as JSON on stdout. */
export interface AdminCommand {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(values: Record<string, string | boolean | string[] | undefined>, orm: MikroORM): Promise<unknown>;
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
