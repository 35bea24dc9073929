import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workflowBundle } from '../../worker/workflow-bundle';

/*
 * npm start reuses the workflow bundle while every file webpack read is unchanged. The workflows
 * here live in a folder inside the repository, so that webpack resolves @temporalio/workflow from
 * its node_modules as it does for the real ones.
 */
describe('workflow bundle cache', () => {
  const src = fs.mkdtempSync(path.join(__dirname, '..', '..', 'workflows', '.bundle-test-'));
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-bundle-cache-'));
  const entry = path.join(src, 'index.ts');
  afterAll(() => {
    fs.rmSync(src, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('is built once, reused while unchanged, and rebuilt when a workflow or what it imports changes', async () => {
    fs.writeFileSync(path.join(src, 'greeting.ts'), "export const greeting = 'hello';\n");
    fs.writeFileSync(
      entry,
      "import { greeting } from './greeting';\nexport async function greet(): Promise<string> { return greeting; }\n",
    );

    const first = await workflowBundle(entry, cache);
    expect(first.cached).toBe(false);
    expect(fs.readFileSync(first.path, 'utf8')).toContain("'hello'");
    expect(await workflowBundle(entry, cache)).toEqual({ path: first.path, cached: true });

    // An imported file changes: the bundle is made again, with the new text.
    fs.writeFileSync(path.join(src, 'greeting.ts'), "export const greeting = 'good morning';\n");
    const second = await workflowBundle(entry, cache);
    expect(second.cached).toBe(false);
    expect(fs.readFileSync(second.path, 'utf8')).toContain("'good morning'");
    expect((await workflowBundle(entry, cache)).cached).toBe(true);

    // A bundle file that is not the one the manifest describes is never used.
    fs.appendFileSync(second.path, '\n// edited\n');
    const third = await workflowBundle(entry, cache);
    expect(third.cached).toBe(false);
    expect(fs.readFileSync(third.path, 'utf8')).not.toContain('// edited');
  }, 120_000);
});
