// Fails fast when jest is launched on the system Node (an editor's runner, `npm install --ignore-scripts`).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  throw new Error(`Node >= 22.17 required (the "node" devDependency provides Node 24 to npm scripts); got ${process.version}`);
}

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/src', '<rootDir>/rest-adapter'],
  testMatch: ['**/*.test.ts'],
  // Browser tests run apart (npm run test:browser, jest.browser.config.js): they need Chromium.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/browser/'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
  testTimeout: 30000,
  // Two cores here: two workers share one PostgreSQL cluster, each test file in its own database.
  maxWorkers: 2,
};
