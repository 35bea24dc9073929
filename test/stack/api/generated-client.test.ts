import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { OPENAPI_DOCUMENTS, openApiFile } from '../../../main';
import { sendReviewDecision, waitForStatusChange } from '../../../services/review';
import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** The integrator's program and its tsconfig (test/stack/api/generated-client/), outside the project's tsc run. */
const PROGRAM = path.join(__dirname, 'generated-client');
const run = promisify(execFile);

/** The signature of generated-client/journey.ts, which is loaded by path (see below). */
type Journey = (opts: { baseUrl: string; offer: unknown; approve: (offerId: string) => Promise<string> }) => Promise<unknown>;

/**
 * openapi-typescript's programmatic API, from each served document's address, as an integrator
 * generates types. It is an ES module, which jest's module system cannot load: a plain Node process runs it.
 */
async function generateTypes(base: string, dir: string): Promise<void> {
  const script = `
    import fs from 'node:fs';
    import openapiTS, { astToString } from 'openapi-typescript';
    const [dir, base, ...names] = process.argv.slice(1);
    for (const name of names) {
      const ast = await openapiTS(new URL(base + '/' + name + '/beta/openapi.json'));
      fs.writeFileSync(dir + '/' + name + '.ts', astToString(ast));
    }`;
  await run(process.execPath, ['--input-type=module', '-e', script, dir, base, ...OPENAPI_DOCUMENTS], { cwd: ROOT });
}

/*
 * The generated TypeScript is not committed (docs/decisions/0032-generated-clients-documents-committed.md: the reviewed artifact is
 * docs/openapi/*.json). This test generates it into a temporary folder, type-checks an
 * integrator's program against it and runs that program against the live API.
 */
describe('generated TypeScript clients', () => {
  let h: Harness;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-client-'));
    await generateTypes(base, dir);
    for (const file of ['journey.ts', 'tsconfig.json']) fs.copyFileSync(path.join(PROGRAM, file), path.join(dir, file));
    // The integrator's own node_modules: openapi-fetch, @types/node and TypeScript, as installed here.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the live API serves the committed documents', async () => {
    for (const name of OPENAPI_DOCUMENTS) {
      const served = await (await fetch(`${base}/${name}/beta/openapi.json`)).json();
      expect([name, served]).toEqual([name, JSON.parse(fs.readFileSync(openApiFile(name), 'utf8'))]);
    }
  });

  it('the program type-checks (strict) against the types generated from the served documents', async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', dir]).then(
      () => 'no type errors',
      (err: { stdout: string }) => err.stdout,
    );
    expect(checked).toBe('no type errors');
  });

  it('a developer signs up, then submits, searches, orders and redeems through the generated clients only', async () => {
    // The program that was just type-checked, run as it is (jest strips its types); required by
    // path because an import would pull it, and its absent generated types, into the project's tsc.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { journey } = require(path.join(dir, 'journey.ts')) as { journey: Journey };
    const seen = await journey({
      baseUrl: base,
      offer: validOffer({ title: 'Generated-client dinner' }),
      // The review console's decision: an operator approves.
      approve: async (offerId) => {
        await sendReviewDecision(h.services, offerId, 'approve', { reviewer: 'generated-client test' });
        return waitForStatusChange(h.services, offerId, 'pending');
      },
    });
    expect(seen).toEqual({
      signupError: undefined,
      created: 200,
      decided: 'approved',
      found: true,
      foundNear: true,
      vouchers: 2,
      redeemed: 'redeemed',
      again: [409, 'ERROR'],
      readBack: 'redeemed',
    });
  });
});
