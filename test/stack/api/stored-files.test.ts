import fs from 'node:fs';
import path from 'node:path';
import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

/*
 * Issue 43 item 8: what the service stores is kept no longer and no more openly than it must. The
 * DATA_DIR (temporal.db with codes and customer names, the local S3 server's objects, logs) is
 * owner-only; an upload whose Idempotency-Key is refused leaves no object behind.
 */
describe('stored files', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({});
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  async function objectKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const o of h.services.store.client.listObjectsV2(h.services.store.bucket, prefix, true))
      keys.push((o as { name: string }).name);
    return keys;
  }

  it('a code import refused for its reused Idempotency-Key leaves no upload behind', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers: { 'x-service-api-key': key },
      payload: { offer: validOffer({ initial_quantity: undefined, vouchers: [{ redemption_code: 'SEED-1' }] }) },
    });
    const offerId = created.json().offer.id as string;
    const post = (csv: string) =>
      h.app.inject({
        method: 'POST',
        url: `${SUB}/offers/${offerId}/voucher_imports`,
        headers: { 'x-service-api-key': key, 'content-type': 'text/csv', 'idempotency-key': `imp-${offerId}` },
        payload: csv,
      });
    expect((await post('redemption_code\nA-1\n')).statusCode).toBe(202);
    const before = await objectKeys('voucher-imports/');
    const refused = await post('redemption_code\nB-1\n');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors[0].code).toBe('idempotency_key_reused');
    expect(await objectKeys('voucher-imports/')).toEqual(before);
  });

  it("the stack's DATA_DIR is owner-only: no other user reaches temporal.db, the S3 server's objects or the logs", () => {
    const dataDir = process.env.DATA_DIR!;
    // Written by the test set-up itself, not by the service's stack.
    const ours = new Set(['workflow-bundle.js', 'workflow-bundle.js.json', 'stack-process.log']);
    const open: string[] = [];
    const seen: string[] = [];
    // versitygw writes its objects 0644 whatever the umask; they sit in folders of mode 0700, so no other user can
    // reach them. A path counts as open when its own mode lets others in and no folder on its way shuts them out.
    const walk = (dir: string, shut: boolean) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isSymbolicLink() || (dir === dataDir && (e.name === 'postgres' || ours.has(e.name)))) continue;
        seen.push(path.relative(dataDir, p));
        const mode = fs.lstatSync(p).mode;
        if (!shut && mode & 0o077) open.push(`${path.relative(dataDir, p)} ${(mode & 0o777).toString(8)}`);
        if (e.isDirectory()) walk(p, shut || (mode & 0o011) === 0);
      }
    };
    walk(dataDir, false);
    expect(seen.some((p) => p.endsWith('.db'))).toBe(true);
    expect(seen.some((p) => p.startsWith('logs'))).toBe(true);
    expect(open).toEqual([]);
    expect(fs.statSync(dataDir).mode & 0o066).toBe(0);
  });
});
