import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildAppSchema } from './schema.js';

export const SCHEMA_FILE = 'schema/schema.graphql';

/** The committed SDL: sorted, so that moving a resolver around does not rewrite the whole file. */
export async function printAppSchema(): Promise<string> {
  const schema = await buildAppSchema();
  return `# Generated from the code by \`npm run schema:emit\`. Do not edit: a test fails when this file is stale.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
