import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { BenchStack } from './bench-stack';
import { say } from './bench-stack';
import { dealInput } from './offer-fixture';

/*
 * `npm run bench -- bulk` (its import and generation sections; docs/bulk-vouchers.md): 1,000,000
 * codes as a CSV upload to `completed`, 1,000,000 codes generated, each timed from the request to
 * the import's `completed`, beside the same rows loaded with one `COPY` into a table with the same
 * unique index (the floor: no service, no batches, no events). Peak memory (RSS) of the API and the
 * worker is sampled throughout (one process unless BENCH_WORKER=separate).
 */

export interface BulkImportsResult {
  rows: number;
  batch_rows: number;
  import: { upload_s: number; completed_s: number; rows_per_s: number };
  generate: { completed_s: number; rows_per_s: number };
  copy_baseline_s: number;
  /** Service time over COPY time for the same rows. */
  import_vs_copy: number;
  generate_vs_copy: number;
  peak_rss_mb: { api: number; worker: number };
  /** The same processes before the section's work: what the peak is measured against. */
  idle_rss_mb: { api: number; worker: number };
}

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 1_000_000);

/** Samples this process's and the worker's resident memory until stopped; answers the peaks in MB. */
function memorySampler(workerPid: number | undefined) {
  let api = 0;
  let worker = 0;
  const rssOf = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  const timer = setInterval(() => {
    api = Math.max(api, process.memoryUsage().rss);
    if (workerPid) worker = Math.max(worker, rssOf(workerPid));
  }, 50);
  return () => {
    clearInterval(timer);
    const mb = (n: number) => Math.round(n / 1024 / 1024);
    return { api: mb(api), worker: mb(workerPid ? worker : api) };
  };
}

async function suppliedOffer(b: BenchStack, code: string): Promise<string> {
  const res = await b.post('/submission/beta/offers', b.sub.key, {
    offer: { ...dealInput(), initial_quantity: undefined, vouchers: [{ redemption_code: code }] },
  });
  const body = (await res.json()) as { offer: { id: string } };
  return body.offer.id;
}

async function untilCompleted(b: BenchStack, id: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${b.base}/submission/beta/voucher_imports/${id}`, { headers: { 'x-service-api-key': b.sub.key } });
    const imp = ((await res.json()) as { voucher_import: { status: string; rows_imported: number } }).voucher_import;
    if (imp.status === 'completed') return;
    if (imp.status === 'failed') throw new Error(`import ${id} failed`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function writeCsv(file: string, prefix: string): void {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'redemption_code\n');
  for (let i = 0; i < ROWS; i += 10_000) {
    const lines = Array.from({ length: Math.min(10_000, ROWS - i) }, (_, k) => `${prefix}${String(i + k).padStart(8, '0')}`);
    fs.writeSync(fd, `${lines.join('\n')}\n`);
  }
  fs.closeSync(fd);
}

/** The floor: the same file into a table with the same unique index, by one server-side COPY. */
async function copyBaseline(b: BenchStack, file: string): Promise<number> {
  const db = b.services.db;
  await sql`drop table if exists bench_copy_codes`.execute(db);
  await sql`create table bench_copy_codes (id text primary key default gen_random_uuid()::text, advertiser_id text not null default 'adv',
    redemption_code text not null, barcode text, unique (advertiser_id, redemption_code))`.execute(db);
  const t0 = performance.now();
  await sql`copy bench_copy_codes (redemption_code) from ${sql.lit(file)} with (format csv, header true)`.execute(db);
  const s = (performance.now() - t0) / 1000;
  await sql`drop table bench_copy_codes`.execute(db);
  return s;
}

export async function benchBulkImports(b: BenchStack): Promise<BulkImportsResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bulk-'));
  const file = path.join(dir, 'codes.csv');
  writeCsv(file, 'BULK');
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(file, 0o644);
  // A warm-up import first: the worker bundles its workflows and compiles the code paths on its
  // first workflow (once per process), which is not the import's memory.
  const warm = await b.post(`/submission/beta/offers/${await suppliedOffer(b, 'WARM-0')}/voucher_imports`, b.sub.key, {
    voucher_import: { generate: { count: 10 } },
  });
  await untilCompleted(b, ((await warm.json()) as { voucher_import: { id: string } }).voucher_import.id);
  const idle = memorySampler(b.workerPid);
  await new Promise((r) => setTimeout(r, 200));
  const idle_rss_mb = idle();
  const peaks = memorySampler(b.workerPid);
  try {
    say(`bulk: importing ${ROWS} codes from a CSV upload…`);
    const offer = await suppliedOffer(b, 'BULK-FIRST');
    const t0 = performance.now();
    const res = await fetch(`${b.base}/submission/beta/offers/${offer}/voucher_imports`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'x-service-api-key': b.sub.key },
      body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const uploaded = (await res.json()) as { voucher_import: { id: string } };
    const upload_s = (performance.now() - t0) / 1000;
    await untilCompleted(b, uploaded.voucher_import.id);
    const completed_s = (performance.now() - t0) / 1000;

    say(`bulk: generating ${ROWS} codes…`);
    const genOffer = await suppliedOffer(b, 'GEN-FIRST');
    const t1 = performance.now();
    const gen = await b.post(`/submission/beta/offers/${genOffer}/voucher_imports`, b.sub.key, {
      voucher_import: { generate: { count: ROWS, pattern: { length: 12 } } },
    });
    await untilCompleted(b, ((await gen.json()) as { voucher_import: { id: string } }).voucher_import.id);
    const generated_s = (performance.now() - t1) / 1000;

    say('bulk: the COPY baseline…');
    const copy = await copyBaseline(b, file);
    const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
    const result: BulkImportsResult = {
      rows: ROWS,
      batch_rows: b.config.VOUCHER_IMPORT_BATCH_ROWS,
      import: { upload_s: round(upload_s), completed_s: round(completed_s), rows_per_s: Math.round(ROWS / completed_s) },
      generate: { completed_s: round(generated_s), rows_per_s: Math.round(ROWS / generated_s) },
      copy_baseline_s: round(copy),
      import_vs_copy: round(completed_s / copy, 1),
      generate_vs_copy: round(generated_s / copy, 1),
      peak_rss_mb: peaks(),
      idle_rss_mb,
    };
    say(`bulk: ${JSON.stringify(result)}`);
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
