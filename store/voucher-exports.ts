import { sql } from 'kysely';
import type { Db } from './db';
import type { VoucherExportRow } from './database';

/* The voucher_exports table (migration 0055): each export's state, progress and where its file is. */

export async function insertVoucherExport(
  db: Db,
  e: Pick<VoucherExportRow, 'id' | 'client_id' | 'offer_id' | 'interface' | 'object_key' | 'signing_key'>,
): Promise<VoucherExportRow> {
  return db
    .insertInto('voucher_exports')
    .values({ ...e, status: 'queued' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes an export whose workflow could not be started (nothing was written for it). */
export async function deleteUnstartedExport(db: Db, id: string): Promise<void> {
  await db.deleteFrom('voucher_exports').where('id', '=', id).where('status', '=', 'queued').execute();
}

/** This client's export (another client's is not found). */
export function findClientExport(db: Db, clientId: string, id: string): Promise<VoucherExportRow | undefined> {
  return db.selectFrom('voucher_exports').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** Any export by id (the download link is checked by its own signature). */
export function findExport(db: Db, id: string): Promise<VoucherExportRow | undefined> {
  return db.selectFrom('voucher_exports').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The rows written so far, after a part was uploaded. Idempotent: the count is the workflow's own
 * (rows before the part + the part's), so a retried part sets the same number again.
 */
export async function recordExportProgress(db: Db, id: string, rows: number): Promise<void> {
  await db
    .updateTable('voucher_exports')
    .set({ status: 'running', rows })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** The export's end: completed with its row count, or failed with why. Idempotent (a finished export stays as it ended). */
export async function finishExport(db: Db, id: string, end: { rows: number } | { error: string }): Promise<void> {
  await db
    .updateTable('voucher_exports')
    .set(
      'rows' in end
        ? { status: 'completed', rows: end.rows, finished_at: new Date() }
        : { status: 'failed', error: end.error, finished_at: new Date() },
    )
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Up to `limit` finished exports whose file is older than `keepSeconds` and not yet deleted, oldest first. */
export async function voucherExportFilesDue(db: Db, a: { keepSeconds: number; limit: number }): Promise<{ id: string; key: string }[]> {
  const rows = await db
    .selectFrom('voucher_exports')
    .select(['id', 'object_key'])
    .where('files_pruned_at', 'is', null)
    .where('finished_at', 'is not', null)
    .where('finished_at', '<', sql<Date>`now() - make_interval(secs => ${a.keepSeconds})`)
    .orderBy('finished_at')
    .limit(a.limit)
    .execute();
  return rows.map((r) => ({ id: r.id, key: r.object_key }));
}

/** Records that these exports' files were deleted: their download is gone from now on. */
export async function markVoucherExportFilesPruned(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('voucher_exports')
    .set({ files_pruned_at: sql<Date>`now()` })
    .where('id', 'in', ids)
    .execute();
}
