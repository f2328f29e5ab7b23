// The one Node version check, against package.json's "engines" (the one place the minimum is written). npm scripts run
// it first (npm puts node_modules/.bin, the pinned `node` package, first on PATH) and jest.config.js imports it: if
// install scripts were skipped, or an editor's runner uses the system Node, say so now rather than fail later in
// confusing ways. Plain JavaScript that any old Node can parse.
import fs from 'node:fs';

const range = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const [wantMajor, wantMinor = 0] = range
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  console.error(
    `This service needs Node ${range} (it brings Node 24 as the "node" devDependency); this is ${process.version}.\n` +
      'Run "npm install" (without --ignore-scripts or --omit=dev) and use the npm scripts: npm start, npm test.',
  );
  process.exit(1);
}
