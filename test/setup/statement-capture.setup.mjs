// jest's setupFilesAfterEnv: each test file's own copies of `pg` (jest loads modules per test file) record what they send.
import path from 'node:path';
import { patch, sinkTo } from './statement-capture.mjs';

const dir = process.env.STATEMENT_CAPTURE_DIR;
if (dir) {
  const test = path.relative(path.resolve(import.meta.dirname, '../..'), expect.getState().testPath);
  // The service processes this file spawns (test/helpers/process.ts captureEnv) name it as theirs.
  process.env.STATEMENT_CAPTURE_TEST = test;
  const sink = sinkTo(dir, test);
  for (const file of JSON.parse(process.env.STATEMENT_CAPTURE_PG ?? '[]')) patch((await import(file)).default, sink);
}
