import { execFileSync } from 'node:child_process';
import path from 'node:path';

/*
 * The floor plan (docs/architecture.md) is only as good as the lint that keeps it. These lint
 * small sources placed, in name, in each folder, with the project's own eslint.config.mjs: an
 * upward import must be refused, the allowed direction must pass.
 */

const root = path.join(__dirname, '..', '..');

// ESLint loads its config as an ES module, which jest's sandbox cannot: lint in a plain node, all
// sources in one run. The direction rules read paths, not types: the type-aware parts are off.
const LINTER = `
  const { ESLint } = require('eslint');
  const eslint = new ESLint({ overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, project: null } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  } });
  const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  Promise.all(cases.map(async ([file, code]) => {
    const [r] = await eslint.lintText(code, { filePath: require('node:path').resolve(file) });
    return r.messages.filter((m) => /no-restricted-(imports|syntax)/.test(m.ruleId ?? '')).map((m) => m.message);
  })).then((out) => process.stdout.write(JSON.stringify(out)));
`;

type Case = [file: string, code: string];

const refused: Case[] = [
  ['activities/lint-fixture.ts', "import { ApiError } from '../api/errors';\nexport const e = ApiError;\n"],
  ['activities/callbacks/lint-fixture.ts', "import { fromFailure } from '../../api/errors';\nexport const e = fromFailure;\n"],
  ['activities/lint-fixture.ts', "import { createOffer } from '../services/offers';\nexport const c = createOffer;\n"],
  ['workflows/lint-fixture.ts', "import { ApiError } from '../api/errors';\nexport const e = ApiError;\n"],
  ['workflows/lint-fixture.ts', "import type { ServiceDeps } from '../services/deps';\nexport type D = ServiceDeps;\n"],
  ['workflows/lint-fixture.ts', "import crypto from 'node:crypto';\nexport const id = crypto.randomUUID();\n"],
  ['workflows/lint-fixture.ts', "import { createActivities } from '../activities';\nexport const a = createActivities;\n"],
  // Payloads are domain types: an API schema's change must not change workflow histories.
  ['workflows/lint-fixture.ts', "import type { Order } from '../schemas/order';\nexport type O = Order;\n"],
  ['domain/lint-fixture.ts', "import { newId } from '../store/ids';\nexport const id = newId;\n"],
  ['store/lint-fixture.ts', "import { toXml } from '../schemas/xml';\nexport const x = toXml;\n"],
  ['api/routes/lint-fixture.ts', "import { newId } from '../../store/ids';\nexport const id = newId;\n"],
  ['api/plugins/lint-fixture.ts', "import type { ApiClient } from '../../store/database';\nexport type C = ApiClient;\n"],
  ['services/lint-fixture.ts', "import { ApiError } from '../api/errors';\nexport const e = ApiError;\n"],
  // A query outside store/, and a workflow's type name written as a string outside its contract.
  [
    'services/lint-fixture.ts',
    "import type { Db } from '../store/db';\nexport const q = (db: Db) => db.selectFrom('offers').selectAll().execute();\n",
  ],
  ['services/lint-fixture.ts', "export const start = (c: { start(n: string): void }) => c.start('offerReviewWorkflow');\n"],
  // The platform layer imports domain/ only; composition (main/) and the dev stack are imported by nobody below.
  ['platform/lint-fixture.ts', "import { Operators } from '../services/operators';\nexport const o = Operators;\n"],
  ['platform/lint-fixture.ts', "import type { PlacedAnswer } from '../workflows/order-intake-messages';\nexport type P = PlacedAnswer;\n"],
  ['platform/lint-fixture.ts', "import { newId } from '../store/ids';\nexport const id = newId;\n"],
  ['api/routes/lint-fixture.ts', "import { startStack } from '../../infra/local/stack';\nexport const s = startStack;\n"],
  ['api/lint-fixture.ts', "import { connectServices } from '../main/wiring';\nexport const c = connectServices;\n"],
  ['services/lint-fixture.ts', "import type { Services } from '../main/wiring';\nexport type S = Services;\n"],
  ['activities/lint-fixture.ts', "import { persistedSecret } from '../infra/local/secrets';\nexport const p = persistedSecret;\n"],
  ['store/lint-fixture.ts', "import { connectServices } from '../main/wiring';\nexport const c = connectServices;\n"],
  ['workflows/lint-fixture.ts', "import { cacheDir } from '../platform/cache-dir';\nexport const c = cacheDir;\n"],
  ['worker/lint-fixture.ts', "import { createOffer } from '../services/offers';\nexport const c = createOffer;\n"],
  ['worker/lint-fixture.ts', "import { startStack } from '../infra/local/stack';\nexport const s = startStack;\n"],
  ['infra/local/lint-fixture.ts', "import { createDb } from '../../store/db';\nexport const d = createDb;\n"],
  ['infra/local/lint-fixture.ts', "import { buildApp } from '../../api/app';\nexport const b = buildApp;\n"],
  // The local servers know no workflow; the suite and the benchmarks reach main/ through its index only.
  [
    'infra/local/lint-fixture.ts',
    "import { OFFER_SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';\nexport const a = OFFER_SEARCH_ATTRIBUTES;\n",
  ],
  ['test/lint-fixture.ts', "import { connectServices } from '../main/wiring';\nexport const c = connectServices;\n"],
  ['bench/lint-fixture.ts', "import { connectServices } from '../main/wiring';\nexport const c = connectServices;\n"],
  ['bench/lint-fixture.ts', "import { validOffer } from '../test/setup/fixtures';\nexport const v = validOffer;\n"],
  ['main/admin/commands/lint-fixture.ts', "import { ApiError } from '../../../api/errors';\nexport const e = ApiError;\n"],
  ['main/admin/commands/lint-fixture.ts', "import { newId } from '../../../store/ids';\nexport const id = newId;\n"],
  // store/ reads, locks and writes: a refusal is decided in domain/ or services/ (issue 48).
  [
    'store/lint-fixture.ts',
    "import { refuse } from '../domain/failures';\nexport const f = (n: number) => (n < 0 ? refuse('conflict', 'no') : n);\n",
  ],
  ['store/lint-fixture.ts', "import { Failure } from '../domain/failures';\nexport const f = () => new Failure('conflict', 'no');\n"],
];

const allowed: Case[] = [
  [
    'activities/lint-fixture.ts',
    "import { newId } from '../store/ids';\nimport type { Failure } from '../domain/failures';\nexport const x: [typeof newId, Failure?] = [newId];\n",
  ],
  [
    'workflows/lint-fixture.ts',
    "import type { Activities } from '../activities';\nimport { utcDay } from '../domain/dates';\nexport type A = Activities;\nexport const d = utcDay;\n",
  ],
  [
    'api/routes/lint-fixture.ts',
    "import type { ServiceDeps } from '../../services/deps';\nimport { notFound } from '../../domain/failures';\nexport const f = (d?: ServiceDeps) => d ?? notFound('offer');\n",
  ],
  ['services/lint-fixture.ts', "import { newId } from '../store/ids';\nexport const id = newId;\n"],
  [
    'store/lint-fixture.ts',
    "import type { Db } from './db';\nexport const q = (db: Db) => db.selectFrom('offers').selectAll().execute();\n",
  ],
  ['workflows/offer-review-messages.ts', "export const start = (c: { start(n: string): void }) => c.start('offerReviewWorkflow');\n"],
  ['platform/lint-fixture.ts', "import { SERVICE_ENVIRONMENTS } from '../domain/environment';\nexport const e = SERVICE_ENVIRONMENTS;\n"],
  ['api/routes/lint-fixture.ts', "import { putStreamBounded } from '../../platform/object-upload';\nexport const p = putStreamBounded;\n"],
  ['store/lint-fixture.ts', "import { sealSecret } from '../platform/secret-box';\nexport const s = sealSecret;\n"],
  // The store calls the domain's rule, which refuses.
  [
    'store/lint-fixture.ts',
    "import { requireAppendable } from '../domain/supplied-codes';\nexport const f = () => requireAppendable('active', true);\n",
  ],
  ['activities/lint-fixture.ts', "import { checkCallbackUrl } from '../platform/url-safety';\nexport const c = checkCallbackUrl;\n"],
  ['worker/lint-fixture.ts', "import { createActivities } from '../activities';\nexport const a = createActivities;\n"],
  ['infra/local/lint-fixture.ts', "import { progress } from '../../platform/logger';\nexport const p = progress;\n"],
  ['bench/lint-fixture.ts', "import { connectServices } from '../main';\nexport const c = connectServices;\n"],
  [
    'main/lint-fixture.ts',
    "import { buildApp } from '../api/app';\nimport { startStack } from '../infra/local/stack';\nexport const x = [buildApp, startStack];\n",
  ],
  ['main/admin/commands/lint-fixture.ts', "import { createOffer } from '../../../services/offers';\nexport const c = createOffer;\n"],
];

let results: string[][] = [];
beforeAll(() => {
  const input = JSON.stringify([...refused, ...allowed]);
  results = JSON.parse(execFileSync(process.execPath, ['-e', LINTER], { cwd: root, input, encoding: 'utf8' }));
});

describe('lint keeps dependencies pointing one way', () => {
  test.each(refused.map((c, i) => [...c, i] as const))('%s refuses: %s', (_file, _code, i) => {
    expect(results[i]).not.toEqual([]);
  });

  test.each(allowed.map((c, i) => [...c, refused.length + i] as const))('%s allows: %s', (_file, _code, i) => {
    expect(results[i]).toEqual([]);
  });
});
