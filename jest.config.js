const os = require('node:os');

/**
 * Unit tests sit beside the code (src/**\/*.spec.ts); e2e tests in test/ run against real Postgres.
 * NestJS 12 is ESM-only: test/support/esm-transformer.cjs compiles ES-module files under node_modules to
 * CommonJS for Jest (on Node 20 Jest cannot require ES modules itself).
 */
const common = {
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '^.+/node_modules/.+\\.m?js$': '<rootDir>/test/support/esm-transformer.cjs',
  },
  transformIgnorePatterns: [],
  // Files that time themselves against a budget run alone (test/support/file-lock.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/file-lock.ts'],
};

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      // The console's page logic (plain .ts modules beside the pages) is unit-tested the same way.
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/console/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      // Browser tests sit next to the console's pages and run against the real service like the e2e tests.
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/console/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
      slowTestThreshold: 30,
    },
  ],
  testTimeout: 60000,
  // Most files wait on processes, timers and the database more than they compute: two workers keep
  // both cores of a 2-core machine busy (Jest's default, one less than the cores, would be one).
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
};
