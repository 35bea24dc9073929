// Three lanes (README, "Test it"), each a jest project with a folder of its own; a test lives in
// exactly one. `npm test` runs the three; `npm run test:unit|test:workflows|test:stack` one each.
//   unit:      pure code, no server and no global setup (domain, schemas, views, XML, config, cursors, money).
//   workflows: every workflow with its activities replaced, on one Temporal dev server for the lane.
//   stack:     the API and end-to-end tests on the real stack (Postgres, Temporal, S3), as npm start runs it.
//   fuzz:      requests generated from the published OpenAPI documents, broken one way at a time, on the stack (`npm run test:fuzz`).
//   cluster:   the production layout on a real Temporal cluster (four server processes, mTLS), `npm run test:cluster`.
// Besides, test/lint: the lint rules' own tests (eslint and madge over the tree, ~30 s), which belong
// with `npm run lint` rather than in the unit lane's minute (docs/decisions/0059-test-lanes.md).
const ts = ['ts-jest', { isolatedModules: true, diagnostics: false }];

/** What every lane shares: TypeScript through ts-jest (tsc itself runs in CI: .ci/run), the suite's env defaults. */
const common = {
  testEnvironment: 'node',
  rootDir: import.meta.dirname,
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ts,
    // ESM-only dependencies of fastify's, compiled to CommonJS for jest's module system.
    'node_modules/(cookie|content-disposition|json-schema-faker)/.+\\.js$': [
      'ts-jest',
      {
        isolatedModules: true,
        diagnostics: false,
        tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node10' },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|content-disposition|json-schema-faker)/)'],
  // json-schema-faker exports itself to `import` only: jest's CommonJS resolver is pointed at its one file.
  moduleNameMapper: { '^json-schema-faker$': '<rootDir>/node_modules/json-schema-faker/dist/index.js' },
  setupFiles: ['<rootDir>/test/setup/env.ts'],
};

export default {
  forceExit: true,
  // Global: jest reads testTimeout from the top-level config only.
  testTimeout: 120_000,
  // Global too: the slowest files first, from a table where jest has no timings of its own (a clean clone).
  testSequencer: '<rootDir>/test/setup/slow-first-sequencer.cjs',
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    { ...common, displayName: 'lint', roots: ['<rootDir>/test/lint'] },
    {
      ...common,
      displayName: 'workflows',
      roots: ['<rootDir>/test/workflows'],
      globalSetup: '<rootDir>/test/setup/workflows-global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/workflows-global-teardown.ts',
    },
    {
      ...common,
      displayName: 'stack',
      roots: ['<rootDir>/test/stack'],
      // Each jest worker a Node process that keeps its modules from file to file (decision 0082).
      runner: ['jest-light-runner', { runtime: 'child_process' }],
      setupFiles: ['<rootDir>/test/setup/typescript-in-node.cjs', ...common.setupFiles],
      setupFilesAfterEnv: ['<rootDir>/test/setup/test-timeouts.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'fuzz',
      roots: ['<rootDir>/test/fuzz'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'cluster',
      roots: ['<rootDir>/test/cluster'],
      globalSetup: '<rootDir>/test/setup/cluster-global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
