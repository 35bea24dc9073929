// The floor plan (docs/architecture.md), enforced: each folder may import only what lies below it.
//
//   main/ (composition: start, wiring, admin CLI; nothing imports it)
//     → api/ (routes, plugins, ops console), worker/, infra/ (local servers)
//   api/, main/admin/commands → services/ (application rules)
//     → workflows/*-messages.ts and workflows/shared/ (contracts), store/ (data layer), schemas/
//   worker/ → activities/ → store/, schemas/, contracts        workflows/ → contracts, domain/, types of activities
//   schemas/ → types of store/        store/ → platform/ → domain/        domain/ → nothing of ours
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NODE_BUILTINS = [...builtinModules.filter((m) => !m.startsWith('_')), ...builtinModules.map((m) => `node:${m}`)];

/** `import … from '<up>/<folder>/…'` patterns for folders above this one, refused even as types. */
const layer = (folders, message) => ({
  group: folders.flatMap((f) => [`../${f}`, `../${f}/*`, `../../${f}`, `../../${f}/*`, `../../../${f}/*`]),
  message,
});
/** The same, but `import type` is allowed (a shape, not code). */
const layerValues = (folders, message) => ({ ...layer(folders, message), allowTypeImports: true });

const workflowsAt = (...ups) => ups.map((up) => `${up}/workflows/*`);
const CONTRACTS_ONLY = {
  group: workflowsAt('..', '../..', '../../..').flatMap((g) => [g, `!${g.replace('*', '*-messages')}`, `!${g.replace('*', 'shared')}`]),
  message: 'Reach a workflow through its contract (workflows/<process>-messages.ts) or workflows/shared/ids, never its code.',
  allowTypeImports: true,
};
const mainByIndex = (...ups) => ({
  group: ups.map((up) => `${up}/main/*`),
  message: "Import the composition layer through its public entry points (main/index.ts: '../main'), not its files.",
});

/** What each folder may not import, in the floor plan's order. */
const LAYERS = {
  domain: [{ group: ['../*', '../**'], message: 'domain/ is the pure vocabulary: it imports nothing of ours.' }],
  platform: [
    layer(
      ['api', 'services', 'activities', 'workflows', 'schemas', 'store', 'worker', 'infra', 'main'],
      'platform/ holds the adapters every layer may use: it imports domain/ and itself only.',
    ),
  ],
  store: [
    layer(
      ['api', 'services', 'activities', 'workflows', 'schemas', 'worker', 'infra', 'main'],
      'store/ is the data layer: it imports domain/, platform/ and itself only.',
    ),
  ],
  schemas: [
    layer(
      ['api', 'services', 'activities', 'workflows', 'worker', 'infra', 'main'],
      'schemas/ describe resources: domain/ and the store’s row types only.',
    ),
    layerValues(['store'], 'schemas/ may read the store’s row types, never call it.'),
  ],
  services: [
    layer(
      ['api', 'activities', 'worker', 'infra', 'main'],
      'services/ are below the API and the CLI: they get their dependencies passed in.',
    ),
    CONTRACTS_ONLY,
  ],
  activities: [
    layer(
      ['api', 'services', 'worker', 'infra', 'main'],
      'activities/ use the data layer (store/) and platform/, never the API or its services.',
    ),
    CONTRACTS_ONLY,
  ],
  workflows: [
    layer(
      ['api', 'services', 'store', 'schemas', 'platform', 'worker', 'infra', 'main'],
      'Workflow code imports contracts, domain/ and activity types only: payloads are domain types, never API schemas.',
    ),
    layerValues(['activities'], 'Workflows import activity types only (`import type`): their code runs in the worker.'),
  ],
  api: [
    layer(['activities', 'worker', 'infra', 'main'], 'The API reaches work through services/; of the platform it uses platform/ only.'),
    layer(['store'], 'Routes call services/ and read the types services/ and schemas/ export, never store/ (not even its row types).'),
    { group: workflowsAt('..', '../..', '../../..'), message: 'Routes reach workflows through services/.' },
  ],
  worker: [
    layer(['api', 'services', 'store', 'infra', 'main'], 'worker/ runs activities/ and workflows/ on platform/; it is wired by main/.'),
  ],
  infra: [
    layer(
      ['api', 'services', 'activities', 'workflows', 'store', 'schemas', 'worker', 'main'],
      'infra/ runs the local servers: it uses platform/ and domain/ only.',
    ),
  ],
  'main/admin/commands': [
    layer(['api', 'activities', 'worker', 'infra'], 'Admin commands call services/, as the API does.'),
    layerValues(['store'], 'Admin commands call services/; only row types come from store/.'),
    { group: workflowsAt('../../..'), message: 'Admin commands reach workflows through services/.' },
  ],
  // The suite and the benchmarks reach the composition layer through its public entry points only;
  // the benchmarks build their own data (bench/offer-fixture.ts): nothing of the test suite.
  test: [mainByIndex('..', '../..', '../../..')],
  bench: [
    mainByIndex('..', '../..'),
    { group: ['../test', '../test/*', '../../test/*'], message: 'The benchmarks do not import the test suite: build data in bench/.' },
  ],
};
/** The folders whose code runs inside workflows, refused Node built-ins too (by exact name: a pattern `domain` would also match our domain/). */
const WITHOUT_NODE = {
  domain: 'domain/ is used inside workflows: no Node built-ins.',
  workflows: 'Workflow code is deterministic and sandboxed: no Node built-ins.',
};

// A workflow type name is written once, in its contract.
const WORKFLOW_NAME_LITERAL = {
  selector: 'Literal[value=/^[a-z][A-Za-z]*Workflow$/]',
  message: 'Use the workflow type constant from its contract (workflows/<process>-messages.ts), not a string.',
};
// Every query lives in the data layer: one module per table or aggregate (store/).
const QUERY_OUTSIDE_STORE = {
  selector: 'CallExpression > MemberExpression.callee > Identifier.property[name=/^(selectFrom|insertInto|updateTable|deleteFrom)$/]',
  message: 'Queries live in store/ (one module per table); call its functions instead.',
};

// store/ reads, locks and writes; a refusal is a rule, decided in domain/ (pure) or services/.
const REFUSAL_IN_STORE = {
  selector: 'CallExpression[callee.name=/^(refuse|invalidField|notFound|conflict)$/], NewExpression[callee.name="Failure"]',
  message: 'store/ reads, locks and writes: decide refusals in domain/ (a pure function the store calls) or services/.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'main/*.cjs', 'test/setup/*.cjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      'no-restricted-syntax': ['error', WORKFLOW_NAME_LITERAL, QUERY_OUTSIDE_STORE],
    },
  },
  {
    // Small rooms: a file a newcomer reads whole, a function that fits a screen (tests and frozen
    // migrations aside; the benchmarks count, since a newcomer opens them to understand the figures).
    files: ['**/*.ts', '**/*.cjs', '**/*.mjs'],
    ignores: ['test/**', 'store/migrations/**'],
    rules: { 'max-lines': ['error', 300], 'max-lines-per-function': ['error', 80] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', WORKFLOW_NAME_LITERAL] },
  },
  {
    files: ['store/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', WORKFLOW_NAME_LITERAL, REFUSAL_IN_STORE] },
  },
  { files: ['workflows/*-messages.ts'], rules: { 'no-restricted-syntax': 'off' } },
  ...Object.entries(LAYERS).map(([folder, patterns]) => ({
    files: [`${folder}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { ...(WITHOUT_NODE[folder] && { paths: NODE_BUILTINS.map((name) => ({ name, message: WITHOUT_NODE[folder] })) }), patterns },
      ],
    },
  })),
  {
    // Plain CommonJS that Node runs as is (main/launch.cjs, before any TypeScript loader).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
