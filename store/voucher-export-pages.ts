import { sql } from 'kysely';
import type { Db } from './db';
import type { ExportCursor } from '../domain/bulk';
import { csvNumberSql as num, csvText, csvTextSql as text } from '../platform/csv-writer';

/*
 * The rows of a voucher export (docs/bulk-offers-and-exports.md), a page at a time by keyset,
 * never OFFSET: an export of a million vouchers reads each row once, in index order, whatever
 * page it is on. The submission client (the offer's advertiser) gets every voucher of the offer,
 * then every code it supplied that is not issued yet (`available`); a distribution client gets the
 * vouchers it sold of that offer, nothing else. Values come formatted by Postgres (timestamps in
 * UTC ISO 8601), ready for the CSV, each cell as the one CSV writer writes it (platform/csv-writer.ts):
 * a customer's name such as `=HYPERLINK(…)` comes out as text, never a live formula.
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

export interface ExportScope {
  offerId: string;
  /** Set for a distribution client: only the vouchers it sold. */
  distributionClientId?: string;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The CSV line of each row, its fields in VOUCHER_EXPORT_COLUMNS' order (concat_ws: no field may be null, each is coalesced). */
const line = (fields: string[]) => sql.raw(`concat_ws(',', ${fields.join(', ')}) || E'\\n'`);

const VOUCHER_LINE = line([
  text('v.id'),
  text('v.redemption_code'),
  text('v.barcode'),
  text('v.status'),
  text('v.customer_name'),
  text('v.order_id'),
  text(iso('v.acquired_at')),
  text(iso('v.redeemed_at')),
  text(iso('v.cancelled_at')),
  text('v.expiration_date'),
  num('coalesce(r.n, 0)'),
  num('r.amount'),
  num('v.balance_amount'),
  text('coalesce(v.value_currency, r.currency)'),
]);

const CODE_LINE = line([
  "''",
  text('s.redemption_code'),
  text('coalesce(s.barcode, s.redemption_code)'),
  text(`'available'`),
  ...Array.from({ length: 6 }, () => "''"),
  "'0'",
  "''",
  "''",
  "''",
]);

/** A page as Postgres writes it: its CSV lines in order, how many, and the last key (where the next page starts). */
interface CsvPage {
  csv: string;
  n: number;
  last: string | null;
}

/*
 * Postgres formats the page's CSV itself (one text per page): a million rows cost a hundred
 * strings in the worker, not a million row objects.
 */
async function voucherPage(db: Db, scope: ExportScope, after: string, limit: number): Promise<CsvPage> {
  const byClient = scope.distributionClientId ? sql`and v.client_id = ${scope.distributionClientId}` : sql``;
  const { rows } = await sql<CsvPage>`
    select coalesce(string_agg(p.line, '' order by p.k), '') as csv, count(*)::int as n, max(p.k) as last
    from (
      select v.id as k, ${VOUCHER_LINE} as line
      from vouchers v
      left join lateral (
        select count(*)::int as n, sum(amount)::bigint as amount, min(currency_code) as currency
        from voucher_redemptions where voucher_id = v.id and rolled_back_at is null
      ) r on true
      where v.offer_id = ${scope.offerId} ${byClient} and v.id > ${after}
      order by v.id
      limit ${limit}
    ) p`.execute(db);
  return rows[0];
}

async function codePage(db: Db, scope: ExportScope, after: string, limit: number): Promise<CsvPage> {
  const { rows } = await sql<CsvPage>`
    select coalesce(string_agg(p.line, '' order by p.k), '') as csv, count(*)::int as n, max(p.k)::text as last
    from (
      select s.sequence as k, ${CODE_LINE} as line
      from supplied_vouchers s
      where s.offer_id = ${scope.offerId} and s.order_id is null and s.sequence > ${after === '' ? 0 : after}::bigint
      order by s.sequence
      limit ${limit}
    ) p`.execute(db);
  return rows[0];
}

/** The CSV's header line. */
export const VOUCHER_EXPORT_HEADER = csvText([VOUCHER_EXPORT_COLUMNS]);

/** One page of the export from `cursor` (at most `limit` rows, as CSV lines) and the cursor after it. */
export async function readExportPage(
  db: Db,
  scope: ExportScope,
  cursor: ExportCursor,
  limit: number,
): Promise<{ csv: string; rows: number; next: ExportCursor }> {
  if (cursor.phase === 'done') return { csv: '', rows: 0, next: cursor };
  if (cursor.phase === 'vouchers') {
    const page = await voucherPage(db, scope, cursor.after, limit);
    if (page.n === limit) return { csv: page.csv, rows: page.n, next: { phase: 'vouchers', after: page.last! } };
    // The vouchers are done; an advertiser's export goes on with its codes not issued yet.
    return { csv: page.csv, rows: page.n, next: scope.distributionClientId ? { phase: 'done' } : { phase: 'codes', after: '' } };
  }
  const page = await codePage(db, scope, cursor.after, limit);
  return { csv: page.csv, rows: page.n, next: page.n === limit ? { phase: 'codes', after: page.last! } : { phase: 'done' } };
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
