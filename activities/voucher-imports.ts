import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { checkImportRow, makeCode, rejectedValue, type CodePattern, type Rejection } from '../domain/voucher-imports';
import { csvFields, csvLines } from '../platform/csv-lines';
import { voucherImportEventData } from '../schemas/voucher-import';
import type { ImportedCode } from '../store/supplied-vouchers';
import {
  commitVoucherImportBatch,
  findVoucherImport,
  finishVoucherImport,
  lastVoucherImportBatch,
  markVoucherImportRunning,
  type ImportBatch,
  type VoucherImportRow,
} from '../store/voucher-imports';
import type { ImportHooks, VoucherImportProgress } from '../workflows/voucher-import-messages';
import { Failure } from '../domain/failures';

type Deps = Pick<ActivityDeps, 'db' | 'store' | 'config'> & { importHooks?: ImportHooks };

/** Where the next batch starts: after the last committed one (the database says), or at the data's start. */
async function cursorOf(deps: Deps, imp: VoucherImportRow) {
  const last = await lastVoucherImportBatch(deps.db, imp.id);
  return last
    ? { batch: last.batch + 1, byte: Number(last.end_byte), row: Number(last.next_row) }
    : { batch: 0, byte: Number(imp.data_start_byte ?? 0), row: imp.kind === 'file' ? 2 : 1 };
}

/**
 * Checks a batch's rows one at a time as they are read: codes to insert (first of each in the
 * batch) and rejected rows. A line is dropped once checked, so only what the batch commits stays
 * alive while it commits (less for the garbage collector to carry into the old generation).
 */
function rowChecker(imp: VoucherImportRow) {
  const codes: ImportedCode[] = [];
  const rejected: ImportBatch['rejected'] = [];
  const seen = new Set<string>();
  const check = (row: number, text: string, tooLong?: boolean) => {
    if (tooLong) return void rejected.push({ row, code: rejectedValue(text), error: 'line_too_long' });
    const c = checkImportRow(csvFields(text), imp.columns!);
    if ('rejected' in c) rejected.push({ row, code: c.code, error: c.rejected });
    else if (seen.has(c.code)) rejected.push({ row, code: c.code, error: 'repeated_in_file' as Rejection });
    else {
      seen.add(c.code);
      codes.push({ row, code: c.code, barcode: c.barcode });
    }
  };
  return { codes, rejected, check };
}

/**
 * A uniformly random integer in [0, k), from a pool of random bytes refilled 64 KiB at a time
 * (rejection sampling keeps it uniform): one `crypto` call per thousands of codes, not per character.
 */
function randomPicker(): (k: number) => number {
  const pool = Buffer.alloc(64 * 1024);
  let at = pool.length;
  return (k) => {
    if (k > 256) return crypto.randomInt(k);
    const limit = 256 - (256 % k);
    for (;;) {
      if (at === pool.length) {
        crypto.randomFillSync(pool);
        at = 0;
      }
      const b = pool[at++];
      if (b < limit) return b % k;
    }
  };
}

/** `n` codes of the pattern, distinct among themselves and from `seen` (which they join). */
function generate(pattern: CodePattern, n: number, firstRow: number, seen: Set<string>, pick = randomPicker()): ImportedCode[] {
  const out: ImportedCode[] = [];
  while (out.length < n) {
    const code = makeCode(pattern, pick);
    if (seen.has(code)) continue;
    seen.add(code);
    out.push({ row: firstRow + out.length, code, barcode: null });
  }
  return out;
}

const progressOf = (imp: VoucherImportRow, done: boolean): VoucherImportProgress => ({
  done,
  rowsImported: Number(imp.rows_imported),
  rowsRejected: Number(imp.rows_rejected),
});

type Lines = ReturnType<typeof csvLines>;

/** The next batch of a file's lines from `at`: its rows checked, where it ends, and whether the file did. */
async function readBatch(imp: VoucherImportRow, lines: Lines, at: { byte: number; row: number }, size: number) {
  const { codes, rejected, check } = rowChecker(imp);
  let count = 0;
  let end = at.byte;
  let row = at.row;
  let eof = false;
  while (count < size) {
    const next = await lines.next();
    if (next.done) {
      eof = true;
      break;
    }
    if (next.value.text !== '') {
      check(row, next.value.text, next.value.tooLong);
      count++;
    }
    row++;
    end = next.value.end;
  }
  return { end, row, eof, count, codes, rejected };
}

type Batch = Awaited<ReturnType<typeof readBatch>>;

/**
 * A file's batches from the committed cursor. The next batch is read and checked while the
 * current one commits (the worker's CPU beside Postgres's); batches still commit one after the
 * other, in order, so the cursor in the database stays the one truth.
 */
async function importFileBatches(deps: Deps, imp: VoucherImportRow, maxBatches: number): Promise<boolean> {
  const size = deps.config.VOUCHER_IMPORT_BATCH_ROWS;
  let at = await cursorOf(deps, imp);
  const stat = await deps.store.client.statObject(deps.store.bucket, imp.source_key!);
  if (at.byte >= stat.size) return true;
  const stream = await deps.store.client.getPartialObject(deps.store.bucket, imp.source_key!, at.byte);
  const lines = csvLines(stream, at.byte);
  let reading: Promise<Batch> | undefined = readBatch(imp, lines, at, size);
  try {
    for (let k = 0; k < maxBatches && reading; k++) {
      const b: Batch = await reading;
      const last: boolean = b.eof || b.end >= stat.size;
      reading = last || k + 1 === maxBatches ? undefined : readBatch(imp, lines, { byte: b.end, row: b.row }, size);
      // Read ahead: if this batch's commit fails, the stream is destroyed and that read's failure is not news.
      reading?.catch(() => undefined);
      if (b.count) {
        await commitVoucherImportBatch(
          deps.db,
          imp,
          { batch: at.batch, endByte: b.end, nextRow: b.row, codes: b.codes, rejected: b.rejected },
          undefined,
          deps.importHooks,
        );
        Context.current().heartbeat({ batch: at.batch, row: b.row });
      }
      at = { batch: at.batch + 1, byte: b.end, row: b.row };
      if (last) return true;
    }
    return false;
  } finally {
    stream.destroy();
  }
}

async function generateBatches(deps: Deps, imp: VoucherImportRow, maxBatches: number): Promise<boolean> {
  const size = deps.config.VOUCHER_IMPORT_BATCH_ROWS;
  const total = Number(imp.rows_total);
  const pattern = imp.pattern as CodePattern;
  let at = await cursorOf(deps, imp);
  for (let k = 0; k < maxBatches && at.row <= total; k++) {
    const n = Math.min(size, total - at.row + 1);
    const seen = new Set<string>();
    const pick = randomPicker();
    const codes = generate(pattern, n, at.row, seen, pick);
    const more = (m: number, firstRow: number) => generate(pattern, m, firstRow, seen, pick);
    await commitVoucherImportBatch(
      deps.db,
      imp,
      { batch: at.batch, endByte: 0, nextRow: at.row + n, codes, rejected: [] },
      more,
      deps.importHooks,
    );
    Context.current().heartbeat({ batch: at.batch, row: at.row + n });
    at = { batch: at.batch + 1, byte: 0, row: at.row + n };
  }
  return at.row > total;
}

/** Activities of the voucher-import workflow (docs/bulk-vouchers.md). Each batch commits once, whoever retries it. */
export function createVoucherImportActivities(deps: Deps) {
  const load = async (importId: string) => {
    const imp = await findVoucherImport(deps.db, importId);
    if (!imp) throw new Failure('not_found', `voucher import ${importId} not found`);
    return imp;
  };
  return {
    async startVoucherImport(a: { importId: string }): Promise<void> {
      await markVoucherImportRunning(deps.db, a.importId);
    },

    /**
     * Up to `maxBatches` batches from where the committed ones end, each one transaction,
     * heartbeating after each; answers whether the import has no more rows, and its counts.
     */
    async importVoucherBatches(a: { importId: string; maxBatches: number }): Promise<VoucherImportProgress> {
      const imp = await load(a.importId);
      const done = imp.kind === 'file' ? await importFileBatches(deps, imp, a.maxBatches) : await generateBatches(deps, imp, a.maxBatches);
      return progressOf(await load(a.importId), done);
    },

    /** Records the end (once) with its `voucher_import.completed` event. */
    async finishVoucherImport(a: { importId: string; status: 'completed' | 'failed'; message?: string }): Promise<VoucherImportProgress> {
      await finishVoucherImport(deps.db, a.importId, {
        status: a.status,
        message: a.message,
        view: (row) => voucherImportEventData(row, deps.config.PUBLIC_BASE_URL),
      });
      return progressOf(await load(a.importId), true);
    },
  };
}
