import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { COMPONENTS } from '../../api/plugins/openapi-components';
import { OPENAPI_DOCUMENTS, openApiFile, type OpenApiDocument } from '../../main';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

/**
 * The three committed documents together, per operation (bytes): a client loads one whole and a
 * reviewer reads its diff, so each operation may cost about what the named parts made it (4.5 KB
 * at 64 operations); a schema spelled out again instead of referred to shows up here.
 */
const MAX_BYTES_PER_OPERATION = 4_800;
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/**
 * The types a client generated from each document must have by name: the resources under their
 * names in this API (an offer and a statement are shown differently by the two interfaces, so
 * each interface names its own), what clients send (`<name>Input`), and the error body.
 */
const NAMED: Record<OpenApiDocument, string[]> = {
  submission: [
    'SubmissionOffer',
    'OfferCreateInput',
    'OfferUpdateInput',
    'Voucher',
    'SubmissionStatement',
    'MonthlyStatement',
    'Event',
    'Error',
    'Currency',
    'Attachment',
    'Comment',
    'Category',
  ],
  distribution: [
    'DistributionOffer',
    'Order',
    'OrderCreateInput',
    'Voucher',
    'DistributionStatement',
    'MonthlyStatement',
    'Event',
    'Error',
    'Currency',
    'Account',
    'Reservation',
    'Category',
  ],
  developer: ['Signup', 'SignupCreateInput', 'Error'],
};

const committed = (name: OpenApiDocument) => fs.readFileSync(openApiFile(name), 'utf8');

/**
 * The committed documents (test/unit/openapi-documents.test.ts holds them to what the API serves)
 * are made of named parts: each schema registered in api/plugins/openapi-components.ts is one
 * component that every use refers to.
 */
describe('the OpenAPI documents are made of named parts', () => {
  it(`the three together take at most ${MAX_BYTES_PER_OPERATION / 1000} KB per operation`, () => {
    const texts = OPENAPI_DOCUMENTS.map(committed);
    const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const operations = texts
      .map((text) => JSON.parse(text) as { paths: Record<string, Record<string, unknown>> })
      .flatMap((doc) => Object.values(doc.paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.has(key)))).length;
    expect(operations).toBeGreaterThan(0);
    expect(bytes / operations).toBeLessThanOrEqual(MAX_BYTES_PER_OPERATION);
  });

  it('each registered schema has one name, and its own', () => {
    const schemas = Object.values(COMPONENTS);
    expect(new Set(schemas).size).toBe(schemas.length);
    for (const [name, schema] of Object.entries(COMPONENTS)) expect([name, z.globalRegistry.get(schema)?.id]).toEqual([name, name]);
  });

  it.each(OPENAPI_DOCUMENTS)('the %s document spells out no named schema a second time: every use refers to it', (name) => {
    const doc = JSON.parse(committed(name)) as { components: { schemas: Record<string, unknown> } };
    const named = new Map(Object.entries(doc.components.schemas).map(([id, schema]) => [JSON.stringify(schema), id]));
    const copies: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      const id = named.get(JSON.stringify(node));
      if (id && at !== `#/components/schemas/${id}`) copies.push(`${at} repeats ${id}`);
      for (const [key, value] of Object.entries(node)) visit(value, `${at}/${key}`);
    };
    visit(doc, '#');
    expect(copies).toEqual([]);
  });

  it('a client generated with openapi-typescript has the named types', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-names-'));
    try {
      // openapi-typescript is an ES module, which jest's module system cannot load: a plain Node process runs it.
      const script = `
        import fs from 'node:fs';
        import { pathToFileURL } from 'node:url';
        import openapiTS, { astToString } from 'openapi-typescript';
        const [dir, ...files] = process.argv.slice(1);
        for (const file of files) {
          const name = file.split('/').pop().replace('.json', '');
          fs.writeFileSync(dir + '/' + name + '.ts', astToString(await openapiTS(pathToFileURL(file))));
        }`;
      await run(process.execPath, ['--input-type=module', '-e', script, dir, ...OPENAPI_DOCUMENTS.map(openApiFile)], { cwd: ROOT });
      // What an integrator writes: each named type by its name, which tsc refuses if the client lacks it.
      const uses = OPENAPI_DOCUMENTS.flatMap((doc) => [
        `import type { components as ${doc} } from './${doc}';`,
        ...NAMED[doc].map((type) => `export type ${doc}_${type} = ${doc}['schemas']['${type}'];`),
      ]);
      fs.writeFileSync(path.join(dir, 'names.ts'), `${uses.join('\n')}\n`);
      const options = { strict: true, noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'node16', types: [] };
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['names.ts'] }));
      const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const checked = await run(process.execPath, [tsc, '-p', dir]).then(
        () => 'no type errors',
        (err: { stdout: string }) => err.stdout,
      );
      expect(checked).toBe('no type errors');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
