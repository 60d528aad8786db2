// One jest run for the whole workspace. Sources are transformed by SWC (no type-checking here: `npm run build` and
// `npm run typecheck` do that), and `@strata/*` imports resolve to library sources, so tests never need a build —
// except the end-to-end suites, which start the built Strata the way a user does.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/e2e', '<rootDir>/tools', '<rootDir>/deploy'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    '^@strata/schemas$': '<rootDir>/schemas/index.js',
    '^@strata/(gateway|metadata-writer|search-indexer|audit|timeseries-indexer|operations)$':
      '<rootDir>/apps/$1/src/index.ts',
    '^@strata/testing/specifications$': '<rootDir>/libs/testing/src/specifications.ts',
    '^@strata/([a-z-]+)/testing$': '<rootDir>/libs/$1/src/testing.ts',
    '^@strata/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
  },
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
  testTimeout: 30000,
};
