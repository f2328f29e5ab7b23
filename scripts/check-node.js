// Runs before every npm script: npm puts node_modules/.bin (the pinned `node` package, Node 24) first on PATH.
// If install scripts were skipped, the system Node runs instead and fails later in confusing ways; say so now.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  console.error(
    `This service needs Node >= 22.17 (it brings Node 24 as the "node" devDependency); this is ${process.version}.\n` +
      'Run "npm install" (without --ignore-scripts or --omit=dev) and use the npm scripts: npm start, npm test.',
  );
  process.exit(1);
}
