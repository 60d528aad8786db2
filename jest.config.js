// The workspace's tests, in three lanes (jest projects), each run by `npm test` as a phase of its own
// (tools/run-tests.mjs):
// - unit: pure and in-process tests beside the code (`*.spec.ts`), no process started, no engine;
// - contract: the ports' contract suites and their adapters (libs/store, libs/log, libs/indices: `sqlite-*`, `kafka-*`,
//   `mongo-*`, `elasticsearch-*`), and integration
//   tests against engines (`*.int.spec.ts`: the Kafka-protocol broker from Debian's kcat; MongoDB and Elasticsearch
//   when MONGODB_URI / ELASTICSEARCH_URL are set);
// - e2e: Strata started the way a user starts it, driven over HTTP only (`e2e/*.e2e.spec.ts`); its global setup
//   serves the deployments suites share (libs/testing/src/shared-deployments.ts).
// Sources are transformed by SWC (no type-checking here: `npm run build` and `npm run typecheck` do that), and
// `@strata/*` imports resolve to library sources, so tests never need a build — except the end-to-end suites, which
// start the built Strata.
/** The adapters of the engine ports, whose specs run the ports' contract suites (or check an engine's requests). */
const ADAPTER_SPECS =
  '/libs/(store|log|indices)/src/(sqlite|kafka|mongo|elasticsearch|ensure-kafka)-[^/]*\\.spec\\.ts$';

/** What every lane shares. */
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    '^@strata/schemas$': '<rootDir>/schemas/index.js',
    '^@strata/(gateway|metadata-writer|search-indexer|audit|timeseries-indexer|operations)$':
      '<rootDir>/apps/$1/src/index.ts',
    '^@strata/testing/specifications$': '<rootDir>/libs/testing/src/specifications.ts',
    '^@strata/([a-z-]+)/testing$': '<rootDir>/libs/$1/src/testing.ts',
    '^@strata/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
  testTimeout: 30000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/tools', '<rootDir>/deploy'],
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.int\\.spec\\.ts$', ADAPTER_SPECS],
    },
    {
      ...common,
      displayName: 'contract',
      roots: ['<rootDir>/libs', '<rootDir>/apps'],
      testRegex: [ADAPTER_SPECS, '\\.int\\.spec\\.ts$'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    {
      ...common,
      displayName: 'e2e',
      roots: ['<rootDir>/e2e'],
      testMatch: ['**/*.e2e.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
      globalSetup: '<rootDir>/e2e/support/global-setup.ts',
      globalTeardown: '<rootDir>/e2e/support/global-teardown.ts',
    },
  ],
};
