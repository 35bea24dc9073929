import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Trx } from './db';

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
 * Inserts the codes (distinct within the batch), skipping those the advertiser already has
 * (unique index on advertiser and code): a skipped code brought by this same import is one
 * repeated in the file, any other is already the advertiser's. Inside the caller's transaction.
 * In code order, whatever the file's: two imports of one advertiser that bring the same codes
 * wait on them in one order, never each on the other's (decision 0071).
 */
export async function insertImportedCodes(
  trx: Trx,
  o: { offerId: string; advertiserId: string; importId: string; codes: ImportedCode[] },
): Promise<{ inserted: number; skipped: Skipped[] }> {
  if (o.codes.length === 0) return { inserted: 0, skipped: [] };
  const ids = sql.val(newIds('vch', o.codes.length));
  const codes = sql.val(o.codes.map((c) => c.code));
  const rows = sql.val(o.codes.map((c) => c.row));
  // Only the count comes back (one row, not one per code): the skipped codes are asked for apart,
  // and only when some were skipped, which a clean file never has.
  const { rows: count } = await sql<{ n: number }>`
    with ins as (
      insert into supplied_vouchers (id, offer_id, advertiser_id, redemption_code, barcode, import_id)
      select u.id, ${o.offerId}, ${o.advertiserId}, u.code, u.barcode, ${o.importId}
      from unnest(${ids}::text[], ${codes}::text[], ${sql.val(o.codes.map((c) => c.barcode))}::text[], ${rows}::bigint[]) as u(id, code, barcode, n)
      order by u.code
      on conflict (advertiser_id, redemption_code) do nothing
      returning 1)
    select count(*)::int as n from ins`.execute(trx);
  const inserted = count[0].n;
  if (inserted === o.codes.length) return { inserted, skipped: [] };
  // A code skipped is one whose row under the advertiser is not the row just offered for it.
  const { rows: owners } = await sql<{ row: string; code: string; mine: boolean }>`
    select u.row, u.code, coalesce(s.import_id = ${o.importId}, false) as mine
    from unnest(${ids}::text[], ${codes}::text[], ${rows}::bigint[]) as u(id, code, row)
    join supplied_vouchers s on s.advertiser_id = ${o.advertiserId} and s.redemption_code = u.code
    where s.id <> u.id
    order by u.row`.execute(trx);
  return {
    inserted,
    skipped: owners.map((r) => ({ row: Number(r.row), code: r.code, reason: r.mine ? 'repeated_in_file' : 'already_supplied' })),
  };
}

/** `n` ids as newId makes them, from one buffer of random bytes (one call instead of `n`: 12 bytes are 16 base64url characters). */
function newIds(prefix: string, n: number): string[] {
  const text = crypto.randomBytes(12 * n).toString('base64url');
  return Array.from({ length: n }, (_, i) => `${prefix}_${text.slice(16 * i, 16 * i + 16)}`);
}
