// Fails fast when jest is launched on the system Node (an editor's runner, `npm install --ignore-scripts`).
import './scripts/check-node.js';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/src', '<rootDir>/rest-adapter'],
  testMatch: ['**/*.test.ts'],
  // Browser tests run apart (npm run test:browser, jest.browser.config.js): they need Chromium.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/browser/'],
  extensionsToTreatAsEsm: ['.ts'],
  // Our sources import './x.js' for './x.ts'. Never strip a '.json.js': libphonenumber-js imports its metadata that way
  // on purpose, and stripping it made jest load the raw JSON without an import attribute (a deprecation per import).
  moduleNameMapper: { '^(\\.{1,2}/.*)(?<!\\.json)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
  // Records every statement each test file (and the service processes it spawns) sends: test/statements/statement-check.ts.
  setupFilesAfterEnv: ['<rootDir>/test/setup/statement-capture.setup.mjs'],
  testTimeout: 30000,
  // Two cores here: two workers share one PostgreSQL cluster, each test file in its own database.
  maxWorkers: 2,
};
