import base from './jest.config.js';

/** `npm run test:browser`: pages driven in Debian's Chromium (test/browser/*.browser.test.ts), same database set-up. */
export default {
  ...base,
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.browser.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 60000,
  // The statement check (test/statements/statement-check.ts) holds what `npm test` sends; pages reach the same repositories.
  setupFilesAfterEnv: [],
};
