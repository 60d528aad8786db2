// One lint baseline for the workspace: typescript-eslint's type-checked rules, module boundaries enforced by nx tags,
// and Prettier owning formatting. Per-folder departures are listed below, each with its reason.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Engines and frameworks that pure domain code must never touch (`docs/conventions.md`). */
/** The testing library serves tests only: production code of a service never imports it. */
const testHelpers = { group: ['@strata/testing', '@strata/*/testing'], message: 'Test helpers are for tests only.' };

const infrastructurePackages = [
  'kafkajs',
  'mongodb',
  'express',
  '@elastic/*',
  'better-sqlite3',
  'pino',
  'node:fs',
  'fs',
];

export default tseslint.config(
  {
    ignores: [
      '**/src/generated/**',
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'data/**',
      'bench-results/**',
      '.nx/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Named exports only (docs/conventions.md).' },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // Pure model and record code: no engines, no HTTP framework.
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:domain', 'type:contract'],
              bannedExternalImports: infrastructurePackages,
            },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:contract', onlyDependOnLibsWithTags: [] },
            // Adapters' integration specs drive real engines with the testing harness; their production code may not (below).
            {
              sourceTag: 'type:adapter',
              onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:util', 'type:testing'],
            },
            // The testing kit serves the HTTP kit's specs only (production code may not import it, below).
            { sourceTag: 'type:http', onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:testing'] },
            // How a process runs (engines, lifecycle, hosting) and the change-log processor: built on the ports.
            {
              sourceTag: 'type:runtime',
              onlyDependOnLibsWithTags: [
                'type:runtime',
                'type:domain',
                'type:contract',
                'type:util',
                'type:adapter',
                'type:http',
                'type:testing',
              ],
            },
            {
              sourceTag: 'type:testing',
              onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:util', 'type:adapter', 'type:http'],
            },
            // A service is built from libraries only: services never import each other.
            {
              sourceTag: 'type:service',
              onlyDependOnLibsWithTags: [
                'type:runtime',
                'type:domain',
                'type:contract',
                'type:util',
                'type:adapter',
                'type:http',
                'type:testing',
              ],
            },
            // Tools (benchmarks) drive Strata from outside, through the testing harness.
            {
              sourceTag: 'type:tool',
              onlyDependOnLibsWithTags: ['type:testing', 'type:adapter', 'type:domain', 'type:contract'],
            },
            // The console is a browser application: it speaks to Strata over HTTP only, never through its code (its
            // tests read the schemas, to check its GraphQL documents against the served SDL).
            { sourceTag: 'type:console', onlyDependOnLibsWithTags: ['type:contract'] },
            // The standalone process composes the services in one process; nothing else may import a service.
            {
              sourceTag: 'type:composition',
              onlyDependOnLibsWithTags: [
                'type:service',
                'type:runtime',
                'type:domain',
                'type:contract',
                'type:util',
                'type:adapter',
                'type:http',
                'type:testing',
              ],
            },
          ],
        },
      ],
    },
  },
  {
    // Production code never imports the test helpers (test files and the testing entries themselves may).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/testing/**', 'libs/*/src/testing.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [testHelpers] }] },
  },
  {
    // A service's domain folder holds its pure decide/evolve functions (`docs/conventions.md`).
    files: ['apps/*/src/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: infrastructurePackages, message: 'Domain code is pure: no engines, frameworks or I/O.' },
            testHelpers,
            {
              group: ['@strata/log', '@strata/store', '@strata/http', '../http/*', '../consumers/*'],
              allowTypeImports: true,
              message: "Domain code is pure: it may name the ports' types, never call them.",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests use jest's untyped matchers (expect.any, expect.objectContaining) and non-null assertions on fixtures.
    files: ['**/*.spec.ts', '**/testing.ts', '**/testing/**/*.ts', 'e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The console's React components: the rules of hooks (called unconditionally, complete effect dependencies).
    files: ['apps/console/src/**/*.tsx', 'apps/console/src/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Tool configuration files, and jest's global setup and teardown, must export their function as the default export.
    files: ['*.config.js', '*.config.mjs', 'apps/console/vite.config.ts', 'e2e/support/global-*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Plain JavaScript files are CommonJS (schemas/index.js, jest config and reporter) or small ESM tools.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null, project: false },
      globals: {
        module: 'writable',
        require: 'readonly',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
