import { sql } from 'kysely';
import type { Trx } from './db';
import { newId } from './ids';

/*
 * The bulk side of supplied_vouchers (docs/bulk-vouchers.md): a batch of an import adds its codes
 * in one statement, skipping the ones the advertiser already has instead of failing, and says
 * which were skipped and why. Kept apart from store/supplied-vouchers.ts (the offer's own codes
 * and their sale) by size only; both write the one table.
 */

export interface ImportedCode {
  row: number;
  code: string;
  barcode: string | null;
}

export type Skipped = { row: number; code: string; reason: 'repeated_in_file' | 'already_supplied' };

/**
 * Inserts the codes (distinct within the batch) in row order, skipping those the advertiser
 * already has (unique index on advertiser and code): a skipped code brought by this same import
 * is one repeated in the file, any other is already the advertiser's. Inside the caller's transaction.
 */
export async function insertImportedCodes(
  trx: Trx,
  o: { offerId: string; advertiserId: string; importId: string; codes: ImportedCode[] },
): Promise<{ inserted: number; skipped: Skipped[] }> {
  if (o.codes.length === 0) return { inserted: 0, skipped: [] };
  const { rows } = await sql<{ redemption_code: string }>`
    insert into supplied_vouchers (id, offer_id, advertiser_id, redemption_code, barcode, import_id)
    select u.id, ${o.offerId}, ${o.advertiserId}, u.code, u.barcode, ${o.importId}
    from unnest(${sql.val(o.codes.map(() => newId('vch')))}::text[], ${sql.val(o.codes.map((c) => c.code))}::text[],
                ${sql.val(o.codes.map((c) => c.barcode))}::text[], ${sql.val(o.codes.map((c) => c.row))}::bigint[]) as u(id, code, barcode, n)
    order by u.n
    on conflict (advertiser_id, redemption_code) do nothing
    returning redemption_code`.execute(trx);
  if (rows.length === o.codes.length) return { inserted: rows.length, skipped: [] };
  const inserted = new Set(rows.map((r) => r.redemption_code));
  const missing = o.codes.filter((c) => !inserted.has(c.code));
  const owners = await trx
    .selectFrom('supplied_vouchers')
    .select(['redemption_code', 'import_id'])
    .where('advertiser_id', '=', o.advertiserId)
    .where('redemption_code', '=', sql<string>`any(${sql.val(missing.map((c) => c.code))}::text[])`)
    .execute();
  const mine = new Set(owners.filter((r) => r.import_id === o.importId).map((r) => r.redemption_code));
  return {
    inserted: rows.length,
    skipped: missing.map((c) => ({ row: c.row, code: c.code, reason: mine.has(c.code) ? 'repeated_in_file' : 'already_supplied' })),
  };
}

/** Inserts generated codes; answers how many went in (one the advertiser already has is skipped: the caller makes another). */
export async function insertGeneratedCodes(
  trx: Trx,
  o: { offerId: string; advertiserId: string; importId: string; codes: string[]; firstRow: number },
): Promise<number> {
  const r = await insertImportedCodes(trx, { ...o, codes: o.codes.map((code, i) => ({ row: o.firstRow + i, code, barcode: null })) });
  return r.inserted;
}
