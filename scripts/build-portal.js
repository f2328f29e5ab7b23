// Builds the business portal (src/portal/, Preact + Vite) into dist/portal/: hashed asset names under assets/, and
// index.html. Skipped when a hash of its inputs (its sources, the schema its documents are typed from, the lockfile)
// equals the one stamped by the last build, so a restart costs a few file reads, not a bundle.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const source = path.join(root, 'src/portal');
export const PORTAL_OUT = path.join(root, 'dist/portal');
const stampFile = path.join(PORTAL_OUT, '.inputs-hash');
/**
 * The only server files the portal's bundle takes in (plain data and functions, no import of their own): the scope
 * list and role table, the CSV writer, the guest languages, the smallest sample judged and the built-in themes. test/architecture.test.ts
 * refuses any other import from outside src/portal.
 */
export const PORTAL_SHARED_SOURCES = [
  'src/auth/scopes.ts',
  'src/auth/roles.ts',
  'src/shared/csv.ts',
  'src/shared/guest-languages.ts',
  'src/shared/sample.ts',
  'src/shared/themes.ts',
];

function inputsHash() {
  const hash = crypto.createHash('sha256');
  const files = fs
    .readdirSync(source, { recursive: true })
    .map(String)
    .filter((f) => !fs.statSync(path.join(source, f)).isDirectory())
    .sort();
  for (const file of [...files.map((f) => path.join('src/portal', f)), ...PORTAL_SHARED_SOURCES, 'package-lock.json', 'scripts/build-portal.js']) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** 'built' or 'unchanged'. `force` builds whatever the stamp says. */
export async function buildPortal({ force = false } = {}) {
  const hash = inputsHash();
  if (!force && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === hash) return 'unchanged';
  // Loaded only when needed: Vite's import alone costs more than the whole check above.
  const { build } = await import('vite');
  await build({
    root: source,
    base: '/portal/',
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: PORTAL_OUT,
      emptyOutDir: true,
      assetsDir: 'assets',
      sourcemap: true,
      target: 'es2022',
      // No inline data: URLs for assets, so the Content-Security-Policy needs nothing but 'self'.
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      // Its advice on slow plugins is noise at every start on a busy machine.
      rolldownOptions: { checks: { bundlerTimings: false } },
    },
  });
  fs.writeFileSync(stampFile, hash);
  return 'built';
}

// `node scripts/build-portal.js [--force]`: the browser tests run it so (Vite's native bundler does not load inside
// jest's VM modules).
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`portal: ${await buildPortal({ force: process.argv.includes('--force') })}`);
}
