// Compiles the service (src/, rest-adapter/ and mikro-orm.config.ts) to dist/ with swc, using .swcrc (legacy decorators with
// metadata, as type-graphql and MikroORM need). `npm start` runs this first and then plain JavaScript: loading a
// TypeScript loader at run time would hold its compiler in memory for the life of the process.
// Then the business portal (src/portal/, a browser app) with Vite into dist/portal/, unless its inputs are unchanged.
import fs from 'node:fs';
import path from 'node:path';
import { transformFile } from '@swc/core';
import { buildPortal } from './build-portal.js';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist');
const started = performance.now();

const serverFiles = ['src', 'rest-adapter'].flatMap((dir) =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => !f.startsWith(`src${path.sep}portal${path.sep}`)),
);
const sources = ['mikro-orm.config.ts', ...serverFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))];
// Plain JavaScript run as it is (worker threads, which cannot load TypeScript): copied beside the compiled files.
const scripts = serverFiles.filter((f) => f.endsWith('.mjs'));

// Everything but the portal's bundle, which buildPortal keeps while its inputs are the same.
for (const entry of fs.existsSync(out) ? fs.readdirSync(out) : []) {
  if (entry !== 'portal') fs.rmSync(path.join(out, entry), { recursive: true, force: true });
}
await Promise.all(
  sources.map(async (file) => {
    const { code, map } = await transformFile(path.join(root, file), {
      swcrc: true,
      sourceMaps: true,
      sourceFileName: path.relative(path.join(out, path.dirname(file)), path.join(root, file)),
    });
    const target = path.join(out, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    if (map) fs.writeFileSync(`${target}.map`, map);
  }),
);
for (const file of scripts) {
  fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(out, file));
}
const portal = await buildPortal();
if (process.argv.includes('--verbose')) {
  console.log(`built ${sources.length} files into dist/ in ${Math.round(performance.now() - started)} ms (portal: ${portal})`);
}
