import fs from 'node:fs';
import { printAppSchema, SCHEMA_FILE } from '../src/graphql/schema-sdl.js';

describe('schema/schema.graphql', () => {
  it('is what the code emits (run `npm run schema:emit` and commit the file when this fails)', async () => {
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed).toBe(await printAppSchema());
  });
});
