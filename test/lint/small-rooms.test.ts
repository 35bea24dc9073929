import { execFileSync } from 'node:child_process';
import path from 'node:path';

/*
 * Small rooms (docs/architecture.md): no source file over 300 lines, no function over 80, tests and
 * migrations aside. Lints made-up sources, placed in name, with the project's own eslint.config.mjs.
 */

const root = path.join(__dirname, '..', '..');

const LINTER = `
  const { ESLint } = require('eslint');
  const eslint = new ESLint({ overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' } } });
  const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  Promise.all(cases.map(async ([file, code]) => {
    const [r] = await eslint.lintText(code, { filePath: require('node:path').resolve(file) });
    return r.messages.filter((m) => /^max-lines/.test(m.ruleId ?? '')).map((m) => m.ruleId);
  })).then((out) => process.stdout.write(JSON.stringify(out)));
`;

const constants = (n: number) => Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n';
const fn = (bodyLines: number) => `export function f(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(bodyLines)}  return n;\n}\n`;

const cases: Array<[file: string, code: string, expected: string[]]> = [
  ['services/lint-fixture.ts', constants(300), []],
  ['services/lint-fixture.ts', constants(301), ['max-lines']],
  ['bench/lint-fixture.ts', constants(301), ['max-lines']],
  ['services/lint-fixture.ts', fn(76), []], // 80 lines with its signature, first statement, return and brace
  ['workflows/lint-fixture.ts', fn(77), ['max-lines-per-function']],
  ['store/migrations/lint-fixture.ts', constants(301), []],
];

let results: string[][] = [];
beforeAll(() => {
  const input = JSON.stringify(cases.map(([file, code]) => [file, code]));
  results = JSON.parse(execFileSync(process.execPath, ['-e', LINTER], { cwd: root, input, encoding: 'utf8' }));
});

test.each(cases.map((c, i) => [c[0], c[2], i] as const))('%s: %j', (_file, expected, i) => {
  expect(results[i]).toEqual(expected);
});
