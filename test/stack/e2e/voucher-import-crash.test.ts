import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../../setup/eventually';
import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ROWS = 20_000;

describe('a voucher import survives a worker killed inside a batch', () => {
  let h: Harness;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    // No in-process worker at first: the child is the only one.
    h = await createHarness({ fixed: { VOUCHER_IMPORT_BATCH_ROWS: 2000 } });
    await h.operator('ops-import-crash', 'import watcher 12');
  });
  afterAll(async () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    await h.close();
  });

  it('imports every code exactly once, with progress moving batch by batch, after the worker is killed mid-import', async () => {
    const key = await h.key('submission');
    const headers = { 'x-service-api-key': key };
    const created = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers,
      payload: { offer: validOffer({ initial_quantity: undefined, vouchers: [{ redemption_code: 'FIRST' }] }) },
    });
    const offerId = created.json().offer.id as string;
    const codes = Array.from({ length: ROWS }, (_, i) => `K-${String(i).padStart(6, '0')}`);
    const posted = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: `redemption_code\n${codes.join('\n')}\n`,
    });
    expect(posted.statusCode).toBe(202);
    const id = posted.json().voucher_import.id as string;
    const get = async () => (await h.app.inject({ method: 'GET', url: `${SUB}/voucher_imports/${id}`, headers })).json().voucher_import;

    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'import-crash-')), 'paused');
    child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'test', 'setup', 'crash-import-worker.ts'), marker], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true, // its own process group: tsx's node child dies with it
    });
    const exited = new Promise((r) => child!.once('exit', r));
    await eventually('the worker to stop inside the third batch', () => fs.existsSync(marker), { timeoutMs: 90_000 });
    // Two batches committed, the third written and not committed: progress shows the two.
    expect(await get()).toMatchObject({ status: 'running', rows_total: ROWS, rows_imported: 4000, rows_rejected: 0 });
    // The review console shows it running, as far as it got.
    const authorization = `Basic ${Buffer.from('ops-import-crash:import watcher 12').toString('base64')}`;
    const consolePage = (await h.app.inject({ method: 'GET', url: '/ops', headers: { authorization } })).body;
    expect(consolePage).toMatch(new RegExp(`data-import-id="${id}".*<td>running</td><td class="progress">4000 / 20000 \\(20%\\)`));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;

    await h.startWorker(); // the batch call's heartbeat times out; its retry starts after batch 1
    const done = await eventually(
      'the import to complete on the new worker',
      async () => {
        const imp = await get();
        return imp.status === 'completed' ? imp : undefined;
      },
      { timeoutMs: 150_000 },
    );
    expect(done).toMatchObject({ rows_imported: ROWS, rows_rejected: 0 });
    const db = h.services.db;
    const stored = await db.selectFrom('supplied_vouchers').select('redemption_code').where('import_id', '=', id).execute();
    expect(stored).toHaveLength(ROWS);
    expect(new Set(stored.map((s) => s.redemption_code))).toEqual(new Set(codes));
    const batches = await db.selectFrom('voucher_import_batches').select('batch').where('import_id', '=', id).orderBy('batch').execute();
    expect(batches.map((b) => b.batch)).toEqual([...Array(10).keys()]);
    const offer = await db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'initial_quantity'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    expect(offer).toEqual({ quantity_in_stock: ROWS + 1, initial_quantity: ROWS + 1 });
    const steps = await db
      .selectFrom('offer_events')
      .select('id')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .execute();
    expect(steps).toHaveLength(10);
  });
});
