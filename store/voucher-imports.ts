import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { ImportColumns, VoucherImportRow } from './database';
import type { Page, Paged } from '../domain/paging';
import type { Rejection } from '../domain/voucher-imports';
import { appendClientEvent } from './offer-events';
import { lockOffers } from './offer-stock';
import { pageOf } from './paging';
import { unnestRows } from './unnest';
import { growSuppliedStock, insertImportedCodes, type ImportedCode } from './supplied-vouchers';

/*
 * Bulk code imports (docs/bulk-vouchers.md): the import row and its progress, its committed batches
 * and its rejected rows. A batch is one transaction: its codes, its rejections, the import's
 * counters, the offer's stock and initial_quantity with their events, and the batch's own row,
 * whose primary key (import, batch) makes a retried batch a no-op.
 */

export type { VoucherImportRow } from './database';

export interface NewVoucherImport {
  id: string;
  client_id: string;
  offer_id: string;
  advertiser_id: string;
  kind: 'file' | 'generate';
  rows_total: number;
  source_key?: string;
  data_start_byte?: number;
  columns?: ImportColumns;
  pattern?: unknown;
}

export async function insertVoucherImport(db: Db, i: NewVoucherImport): Promise<VoucherImportRow> {
  return db
    .insertInto('voucher_imports')
    .values({
      ...i,
      status: 'queued',
      columns: i.columns ? JSON.stringify(i.columns) : null,
      pattern: i.pattern ? JSON.stringify(i.pattern) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findVoucherImport(db: Db, id: string): Promise<VoucherImportRow | undefined> {
  return db.selectFrom('voucher_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findClientVoucherImport(db: Db, clientId: string, id: string): Promise<VoucherImportRow | undefined> {
  return db.selectFrom('voucher_imports').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** One page of an offer's imports, newest first. */
export function listOfferVoucherImports(db: Db, offerId: string, page: Page): Promise<Paged<VoucherImportRow>> {
  return pageOf(db.selectFrom('voucher_imports').where('offer_id', '=', offerId), page, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

/** Imports not finished yet, oldest first (the review console and `admin vouchers imports`). */
export function listUnfinishedVoucherImports(db: Db, limit: number): Promise<VoucherImportRow[]> {
  return db
    .selectFrom('voucher_imports')
    .selectAll()
    .where('status', 'in', ['queued', 'running'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** queued → running (a repeat changes nothing). */
export async function markVoucherImportRunning(db: Db, id: string): Promise<void> {
  await db
    .updateTable('voucher_imports')
    .set({ status: 'running', updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

/** Where the next batch starts: after the last committed one, or undefined before the first. */
export function lastVoucherImportBatch(db: Db, importId: string) {
  return db
    .selectFrom('voucher_import_batches')
    .select(['batch', 'end_byte', 'next_row'])
    .where('import_id', '=', importId)
    .orderBy('batch', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export interface ImportBatch {
  batch: number;
  endByte: number;
  nextRow: number;
  codes: ImportedCode[];
  rejected: { row: number; code: string; error: Rejection }[];
}

/**
 * The advisory lock class under which batches into one offer commit one at a time (the offer's id
 * hashed is the key). A batch takes the offer's key share first (its codes' foreign key) and its
 * row lock last; two batches into one offer at once would each hold the first and wait for the
 * second (40P01). Taken first, this lock puts them in one order (decision 0071); orders on the
 * offer do not take it, so the row lock stays brief for them.
 */
const OFFER_IMPORTS_LOCK = 0x766d6931; // 'vmi1'

/**
 * Commits one batch of an import in one transaction; false when it was committed before (nothing
 * written). `more` makes replacements for codes skipped as the advertiser's (generation), asked
 * until the batch has its number of codes; a file's skipped codes are rejected rows instead.
 */
export async function commitVoucherImportBatch(
  db: Db,
  imp: Pick<VoucherImportRow, 'id' | 'offer_id' | 'advertiser_id'>,
  b: ImportBatch,
  more?: (n: number, firstRow: number) => ImportedCode[],
  hooks?: { batchWritten?: (importId: string, batch: number) => Promise<void> },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${OFFER_IMPORTS_LOCK}, hashtext(${imp.offer_id}))`.execute(trx);
    const done = await trx
      .selectFrom('voucher_import_batches')
      .select('batch')
      .where('import_id', '=', imp.id)
      .where('batch', '=', b.batch)
      .executeTakeFirst();
    if (done) return false;
    const base = { offerId: imp.offer_id, advertiserId: imp.advertiser_id, importId: imp.id };
    let r = await insertImportedCodes(trx, { ...base, codes: b.codes });
    let imported = r.inserted;
    const rejected = [...b.rejected];
    if (more) {
      for (let row = b.nextRow; r.skipped.length > 0; row += r.skipped.length) {
        r = await insertImportedCodes(trx, { ...base, codes: more(r.skipped.length, row) });
        imported += r.inserted;
      }
    } else rejected.push(...r.skipped.map((s) => ({ row: s.row, code: s.code, error: s.reason })));
    await insertRejections(trx, imp.id, rejected);
    await trx
      .updateTable('voucher_imports')
      .set({
        rows_imported: sql`rows_imported + ${imported}`,
        rows_rejected: sql`rows_rejected + ${rejected.length}`,
        updated_at: new Date(),
      })
      .where('id', '=', imp.id)
      .execute();
    // The offer is locked last and briefly: its stock and initial_quantity grow by the batch's codes.
    if (imported > 0) {
      const key = `voucher-import:${imp.id}:${b.batch}`;
      const offer = (await lockOffers(trx, [imp.offer_id])).get(imp.offer_id)!;
      await growSuppliedStock(trx, offer, imported, { stockKey: key, eventKey: `${key}:updated`, reason: 'vouchers_imported' });
    }
    await trx
      .insertInto('voucher_import_batches')
      .values({ import_id: imp.id, batch: b.batch, end_byte: b.endByte, next_row: b.nextRow, imported, rejected: rejected.length })
      .execute();
    await hooks?.batchWritten?.(imp.id, b.batch);
    return true;
  });
}

async function insertRejections(trx: Trx, importId: string, rejected: ImportBatch['rejected']): Promise<void> {
  if (rejected.length === 0) return;
  await sql`
    insert into voucher_import_rejections (import_id, row, redemption_code, error)
    select ${importId}, u.row, u.code, u.error
    from ${unnestRows('u', { row: 'bigint', code: 'text', error: 'text' }, rejected)}`.execute(trx);
}

/** running → completed or failed, with `voucher_import.completed` to the client (callbacks and feed) in the same transaction; once. */
export async function finishVoucherImport(
  db: Db,
  id: string,
  end: { status: 'completed' | 'failed'; message?: string; view: (row: VoucherImportRow) => Record<string, unknown> },
): Promise<VoucherImportRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('voucher_imports')
      .set({ status: end.status, failure_message: end.message ?? null, finished_at: new Date(), updated_at: new Date() })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await appendClientEvent(trx, {
      key: `voucher_import.completed:${id}`,
      clientId: row.client_id,
      type: 'voucher_import.completed',
      data: end.view(row),
    });
    return row;
  });
}

/** Rejected rows after `afterRow`, in row order (keyset: the errors CSV is read page by page). */
export function voucherImportRejections(db: Db, importId: string, afterRow: number, limit: number) {
  return db
    .selectFrom('voucher_import_rejections')
    .select(['row', 'redemption_code', 'error'])
    .where('import_id', '=', importId)
    .where('row', '>', String(afterRow) as never)
    .orderBy('row')
    .limit(limit)
    .execute();
}

/** Up to `limit` finished file imports whose upload is older than `keepSeconds` and not yet deleted, oldest first. */
export async function voucherImportFilesDue(db: Db, a: { keepSeconds: number; limit: number }): Promise<{ id: string; key: string }[]> {
  const rows = await db
    .selectFrom('voucher_imports')
    .select(['id', 'source_key'])
    .where('files_pruned_at', 'is', null)
    .where('source_key', 'is not', null)
    .where('finished_at', 'is not', null)
    .where('finished_at', '<', sql<Date>`now() - make_interval(secs => ${a.keepSeconds})`)
    .orderBy('finished_at')
    .limit(a.limit)
    .execute();
  return rows.map((r) => ({ id: r.id, key: r.source_key! }));
}

/** Records that these imports' uploads were deleted (the pruning takes each once). */
export async function markVoucherImportFilesPruned(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('voucher_imports')
    .set({ files_pruned_at: sql<Date>`now()` })
    .where('id', 'in', ids)
    .execute();
}
