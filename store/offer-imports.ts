import { sql } from 'kysely';
import type { Db } from './db';
import type { OfferImportLineRow, OfferImportRow } from './database';
import { appendClientEvent } from './offer-events';

/*
 * The offer_imports and offer_import_lines tables (migration 0055): an import, one row per line of
 * its file, and its counters. Each line's result is written once (its offer id, or its errors)
 * with the counter it moves, in one transaction, so a retried step counts nothing twice.
 */

export interface ImportLine {
  line: number;
  /** The validated offer to create. */
  offer?: unknown;
  /** The error body's `errors` for a line refused by validation. */
  errors?: unknown[];
}

const CHUNK = 1000;

/** Records an import (queued) and all its lines, in one transaction. */
export async function insertOfferImport(db: Db, o: { id: string; clientId: string; lines: ImportLine[] }): Promise<OfferImportRow> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('offer_imports')
      .values({
        id: o.id,
        client_id: o.clientId,
        status: 'queued',
        rows_total: o.lines.length,
        rows_rejected: o.lines.filter((l) => l.errors).length,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (let i = 0; i < o.lines.length; i += CHUNK) {
      const values = o.lines.slice(i, i + CHUNK).map((l) => ({
        import_id: o.id,
        line: l.line,
        offer: l.offer === undefined ? null : JSON.stringify(l.offer),
        errors: l.errors ? JSON.stringify(l.errors) : null,
      }));
      await trx.insertInto('offer_import_lines').values(values).execute();
    }
    return row;
  });
}

/** This client's import (another client's is not found). */
export function findClientImport(db: Db, clientId: string, id: string): Promise<OfferImportRow | undefined> {
  return db.selectFrom('offer_imports').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** Lines still to create after `afterLine`, in line order (keyset). */
export function pendingImportLines(db: Db, importId: string, afterLine: number, limit: number): Promise<OfferImportLineRow[]> {
  return db
    .selectFrom('offer_import_lines')
    .selectAll()
    .where('import_id', '=', importId)
    .where('line', '>', afterLine)
    .where('offer_id', 'is', null)
    .where('errors', 'is', null)
    .orderBy('line')
    .limit(limit)
    .execute();
}

/** The refused lines, in line order (keyset after `afterLine`), for errors_url. */
export function rejectedImportLines(db: Db, importId: string, afterLine: number, limit: number) {
  return db
    .selectFrom('offer_import_lines')
    .select(['line', 'errors'])
    .where('import_id', '=', importId)
    .where('line', '>', afterLine)
    .where('errors', 'is not', null)
    .orderBy('line')
    .limit(limit)
    .execute();
}

/** A line's result, once: the offer made of it, or why it was refused; moves the import's counter with it. */
export async function recordImportLine(db: Db, importId: string, line: number, result: { offerId: string } | { errors: unknown[] }) {
  await db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('offer_import_lines')
      .set('offerId' in result ? { offer_id: result.offerId } : { errors: JSON.stringify(result.errors) })
      .where('import_id', '=', importId)
      .where('line', '=', line)
      .where('offer_id', 'is', null)
      .where('errors', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return;
    await trx
      .updateTable('offer_imports')
      .set((eb) =>
        'offerId' in result
          ? { status: 'running', rows_created: eb('rows_created', '+', 1) }
          : { status: 'running', rows_rejected: eb('rows_rejected', '+', 1) },
      )
      .where('id', '=', importId)
      .execute();
  });
}

/**
 * The import's end, with its `offer_import.completed` event for the client's callbacks and feed,
 * in one transaction; idempotent (a finished import stays as it ended, its event is appended once).
 */
export async function finishOfferImport(db: Db, importId: string, status: 'completed' | 'failed'): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('offer_imports')
      .set({ status, finished_at: sql`now()` })
      .where('id', '=', importId)
      .where('status', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst();
    if (!row) return;
    const { id, rows_total, rows_created, rows_rejected } = row;
    await appendClientEvent(trx, {
      key: `offer_import.completed:${id}`,
      clientId: row.client_id,
      type: 'offer_import.completed',
      data: { offer_import: { id, status, rows_total, rows_created, rows_rejected } },
    });
  });
}
