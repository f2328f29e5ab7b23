// `node --import` of the service processes the tests spawn (test/helpers/process.ts captureEnv): their statements too.
import { createRequire } from 'node:module';
import { patch, sinkTo } from './statement-capture.mjs';

const dir = process.env.STATEMENT_CAPTURE_DIR;
if (dir) {
  const require = createRequire(import.meta.url);
  const sink = sinkTo(dir, `${process.env.STATEMENT_CAPTURE_TEST ?? 'unknown'} (child process)`);
  for (const file of JSON.parse(process.env.STATEMENT_CAPTURE_PG ?? '[]')) patch(require(file), sink);
}
