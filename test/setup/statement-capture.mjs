// The statement capture of the routing check (test/statements/statement-check.ts): wraps `query` of every copy of the
// `pg` driver (MikroORM and Kysely both go through one) and appends each distinct statement text, with the project
// frames that sent it, to a file of its own under STATEMENT_CAPTURE_DIR. Plain ESM: jest's setup file and the
// `--import` preload of the service processes the tests spawn share it.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HERE = import.meta.filename;
const PATCHED = Symbol.for('feedback.statementCapture');

/**
 * Every copy of `pg` under node_modules (MikroORM keeps a copy of its own): the files whose export is `Client`. Two
 * levels deep, as npm places them; a full walk of node_modules takes a second.
 */
export function pgClients() {
  return ['node_modules/pg', 'node_modules/*/node_modules/pg', 'node_modules/@*/*/node_modules/pg']
    .flatMap((pattern) => fs.globSync(`${pattern}/package.json`, { cwd: ROOT }))
    .map((file) => path.join(ROOT, path.dirname(file), 'lib/client.js'))
    .filter((file) => fs.existsSync(file));
}

/** The project's frames of a stack, innermost first, as repository paths (`dist/src/x.js` of `npm start` as `src/x.ts`). */
function projectFrames(stack) {
  const frames = [];
  for (const [, file, line] of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+):(\d+):\d+/g)) {
    if (file === HERE || !file.startsWith(`${ROOT}/`) || file.includes('/node_modules/')) continue;
    let rel = path.relative(ROOT, file);
    if (rel.startsWith('dist/')) rel = rel.slice(5).replace(/\.js$/, '.ts');
    const frame = `${rel}:${line}`;
    if (frames.at(-1) !== frame) frames.push(frame);
    if (frames.length === 6) break;
  }
  return frames;
}

/** A sink that writes each distinct statement (whitespace collapsed, string literals as '?') once, to a file of this process and test file. */
export function sinkTo(dir, test) {
  const seen = new Set();
  const file = path.join(dir, `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.ndjson`);
  fs.appendFileSync(file, `${JSON.stringify({ test })}\n`);
  return (text) => {
    // The ORM writes some values inline: one text per statement, whatever it wrote.
    const sql = text
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/'(?:[^']|'')*'/g, "'?'");
    if (seen.has(sql)) return;
    seen.add(sql);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    fs.appendFileSync(file, `${JSON.stringify({ sql, from: projectFrames(stack), test })}\n`);
  };
}

/** Wraps `Client.prototype.query` once; a statement is recorded as it is handed to the driver. */
export function patch(Client, sink) {
  const query = Client.prototype.query;
  if (query[PATCHED]) return;
  const captured = function (config) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') sink(text);
    // biome-ignore lint/complexity/noArguments: pg tells its call forms apart by how many arguments it got
    return query.apply(this, arguments);
  };
  captured[PATCHED] = true;
  Client.prototype.query = captured;
}
