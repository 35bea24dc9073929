import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { admin, adminJson } from '../../setup/admin';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/* The operators' bulk commands (issue 36 item 5): `vouchers export` and `offers import`, with a progress bar on stderr. */

describe('admin vouchers export and offers import', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys());
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-admin-'));
    // The CLI starts its workflows on this harness's task queue, where its worker polls.
    env = { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE };
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  it('vouchers export writes the CSV where asked and prints the result; progress goes to stderr', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const order = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': dist },
      payload: { order: { order_number: `adm-${Date.now()}`, customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 4 }] } },
    });
    expect(order.statusCode).toBe(200);
    const out = path.join(dir, 'export.csv');
    const res = await admin(['vouchers', 'export', offerId, '--out', out], env);
    const printed = adminJson(res);
    expect(printed).toMatchObject({ offer_id: offerId, status: 'completed', rows: 4, file: out });
    expect(res.stderr).toMatch(/rows\/s/);
    const rows = parse(fs.readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.voucher_id).sort()).toEqual((order.json().order.vouchers as { id: string }[]).map((v) => v.id).sort());
  });

  it('offers import creates the valid lines for the client and prints the refused ones', async () => {
    const file = path.join(dir, 'offers.ndjson');
    fs.writeFileSync(file, [JSON.stringify({ offer: validOffer({ title: 'Admin import one' }) }), '{"offer": 1}'].join('\n'));
    const res = await admin(['offers', 'import', file, '--client', sub.clientId], env);
    const printed = adminJson(res);
    expect(printed).toMatchObject({ status: 'completed', rows_total: 2, rows_created: 1, rows_rejected: 1 });
    expect(printed.errors).toEqual([
      { line: 2, status: 'ERROR', errors: [expect.objectContaining({ code: 'invalid_field', field: 'offer' })] },
    ]);
    expect(res.stderr).toMatch(/rows\/s/);
  });
});
