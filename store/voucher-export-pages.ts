import { sql } from 'kysely';
import type { Db } from './db';
import type { ExportCursor } from '../domain/bulk';

/*
 * The rows of a voucher export (docs/bulk-offers-and-exports.md), a page at a time by keyset,
 * never OFFSET: an export of a million vouchers reads each row once, in index order, whatever
 * page it is on. The submission client (the offer's advertiser) gets every voucher of the offer,
 * then every code it supplied that is not issued yet (`available`); a distribution client gets the
 * vouchers it sold of that offer, nothing else. Values come formatted by Postgres (timestamps in
 * UTC ISO 8601), ready for the CSV.
 */

/** The CSV's columns, in order: one source of truth for the header and the rows. */
export const VOUCHER_EXPORT_COLUMNS = [
  'voucher_id',
  'redemption_code',
  'barcode',
  'status',
  'customer_name',
  'order_id',
  'acquired_at',
  'redeemed_at',
  'cancelled_at',
  'expiration_date',
  'redemptions',
  'redeemed_amount',
  'balance_amount',
  'currency_code',
] as const;

export type VoucherExportCsvRow = Record<(typeof VOUCHER_EXPORT_COLUMNS)[number], string | number | null>;

export interface ExportScope {
  offerId: string;
  /** Set for a distribution client: only the vouchers it sold. */
  distributionClientId?: string;
}

const iso = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

async function voucherPage(db: Db, scope: ExportScope, after: string, limit: number): Promise<VoucherExportCsvRow[]> {
  const byClient = scope.distributionClientId ? sql`and v.client_id = ${scope.distributionClientId}` : sql``;
  const { rows } = await sql<VoucherExportCsvRow>`
    select v.id as voucher_id, v.redemption_code, v.barcode, v.status, v.customer_name, v.order_id,
      ${iso('v.acquired_at')} as acquired_at, ${iso('v.redeemed_at')} as redeemed_at, ${iso('v.cancelled_at')} as cancelled_at,
      v.expiration_date::text as expiration_date, coalesce(r.n, 0) as redemptions, r.amount as redeemed_amount,
      v.balance_amount, coalesce(v.value_currency, r.currency) as currency_code
    from vouchers v
    left join lateral (
      select count(*)::int as n, sum(amount)::bigint as amount, min(currency_code) as currency
      from voucher_redemptions where voucher_id = v.id and rolled_back_at is null
    ) r on true
    where v.offer_id = ${scope.offerId} ${byClient} and v.id > ${after}
    order by v.id
    limit ${limit}`.execute(db);
  return rows;
}

async function codePage(db: Db, scope: ExportScope, after: string, limit: number): Promise<(VoucherExportCsvRow & { seq: string })[]> {
  const { rows } = await sql<VoucherExportCsvRow & { seq: string }>`
    select s.sequence::text as seq, null as voucher_id, s.redemption_code, coalesce(s.barcode, s.redemption_code) as barcode,
      'available' as status, null as customer_name, null as order_id, null as acquired_at,
      null as redeemed_at, null as cancelled_at, null as expiration_date, 0 as redemptions, null as redeemed_amount,
      null as balance_amount, null as currency_code
    from supplied_vouchers s
    where s.offer_id = ${scope.offerId} and s.order_id is null and s.sequence > ${after === '' ? 0 : after}::bigint
    order by s.sequence
    limit ${limit}`.execute(db);
  return rows;
}

/** One page of the export from `cursor` (at most `limit` rows) and the cursor after it. */
export async function readExportPage(
  db: Db,
  scope: ExportScope,
  cursor: ExportCursor,
  limit: number,
): Promise<{ rows: VoucherExportCsvRow[]; next: ExportCursor }> {
  if (cursor.phase === 'done') return { rows: [], next: cursor };
  if (cursor.phase === 'vouchers') {
    const rows = await voucherPage(db, scope, cursor.after, limit);
    if (rows.length === limit) return { rows, next: { phase: 'vouchers', after: String(rows[rows.length - 1].voucher_id) } };
    // The vouchers are done; an advertiser's export goes on with its codes not issued yet.
    return { rows, next: scope.distributionClientId ? { phase: 'done' } : { phase: 'codes', after: '' } };
  }
  const codes = await codePage(db, scope, cursor.after, limit);
  const rows = codes.map(({ seq: _seq, ...row }) => row);
  return { rows, next: codes.length === limit ? { phase: 'codes', after: codes[codes.length - 1].seq } : { phase: 'done' } };
}

/** How many rows the export of `scope` will hold now (for a progress bar's total; the export itself may see a few more or fewer). */
export async function countExportRows(db: Db, scope: ExportScope): Promise<number> {
  const byClient = scope.distributionClientId ? sql`and client_id = ${scope.distributionClientId}` : sql``;
  const codes = scope.distributionClientId
    ? sql`0`
    : sql`(select count(*) from supplied_vouchers where offer_id = ${scope.offerId} and order_id is null)`;
  const { rows } = await sql<{ n: number }>`
    select (select count(*) from vouchers where offer_id = ${scope.offerId} ${byClient}) + ${codes} as n`.execute(db);
  return Number(rows[0].n);
}
