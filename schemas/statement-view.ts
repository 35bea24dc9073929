import { csvText, type CsvCell } from '../platform/csv-writer';
import { toXml } from './xml';
import {
  DistributionStatement as DistributionStatementSchema,
  SubmissionStatement as SubmissionStatementSchema,
  DistributionStatementLine as DistributionLineSchema,
  SubmissionStatementLine as SubmissionLineSchema,
  type DistributionStatement,
  type DistributionStatementLine,
  type StatementAmount,
  type StatementQuery,
  type SubmissionStatement,
  type SubmissionStatementLine,
} from './statement';
import type { DistributionStatementRow, SubmissionStatementRow } from '../store/statements';
import { minorUnits, parseMinorUnits } from '../domain/money';

/*
 * The statement view (docs/statements.md): the store's grouped rows, each summing the per-unit
 * figures its vouchers kept from their sale, become the schema's lines; the totals are the sums of
 * the lines per currency, so they reconcile by construction. Pure and deterministic (no clock, a
 * fixed order), so GET /statement and the stored monthly statements give the same bytes. Money
 * is BigInt from the store to the string the schema writes: no sum ever passes through a JS number.
 */

const SUBMISSION_COUNTS = ['vouchers_sold', 'vouchers_cancelled', 'vouchers_redeemed'] as const satisfies (keyof SubmissionStatementLine)[];
const SUBMISSION_MONEY = [
  'gross_sales',
  'refunds',
  'net_sales',
  'redeemed_amount',
  'advertiser_rebate',
] as const satisfies (keyof SubmissionStatementLine)[];
const DISTRIBUTION_COUNTS = ['vouchers_sold', 'vouchers_cancelled'] as const satisfies (keyof DistributionStatementLine)[];
const DISTRIBUTION_MONEY = [
  'gross_sales',
  'net_sales',
  'distributor_revenue',
  'account_revenue',
] as const satisfies (keyof DistributionStatementLine)[];

/** An amount in the line's currency; null when the line has none. */
function amount(currency: string | null, minor: bigint): StatementAmount | null {
  return currency === null ? null : { currency_code: currency, amount: minorUnits(minor) };
}

/** The submission statement of `q`'s period from the store's rows. */
export function toSubmissionStatement(q: StatementQuery, rows: SubmissionStatementRow[]): SubmissionStatement {
  const offers: SubmissionStatementLine[] = rows.map((r) => ({
    offer_id: r.offer_id,
    title: r.title,
    currency_code: r.currency,
    vouchers_sold: r.sold,
    vouchers_cancelled: r.cancelled,
    vouchers_redeemed: r.redeemed,
    gross_sales: amount(r.currency, r.gross),
    refunds: amount(r.currency, r.refunds),
    net_sales: amount(r.currency, r.gross - r.refunds),
    redeemed_amount: amount(r.currency, r.redeemed_amount),
    advertiser_rebate: r.rebate === null ? null : amount(r.currency, r.rebate),
  }));
  return { status: 'OK', statement: { from: q.from, to: q.to, offers, totals: totalsOf(offers, SUBMISSION_COUNTS, SUBMISSION_MONEY) } };
}

/** The distribution statement of `q`'s period from the store's rows. */
export function toDistributionStatement(q: StatementQuery, rows: DistributionStatementRow[]): DistributionStatement {
  const lines: DistributionStatementLine[] = rows.map((r) => ({
    offer_id: r.offer_id,
    account_id: r.account_id,
    currency_code: r.currency,
    vouchers_sold: r.sold,
    vouchers_cancelled: r.cancelled,
    gross_sales: amount(r.currency, r.gross),
    net_sales: amount(r.currency, r.gross - r.refunds),
    distributor_revenue: amount(r.currency, r.distributor_revenue),
    account_revenue: amount(r.currency, r.account_revenue),
  }));
  return { status: 'OK', statement: { from: q.from, to: q.to, lines, totals: totalsOf(lines, DISTRIBUTION_COUNTS, DISTRIBUTION_MONEY) } };
}

/**
 * One entry per currency (a line's own currency_code, null last): each count and each money field the
 * sum of that field over the lines in that currency. A null money field (a rebate in another
 * currency) adds nothing; a total's money is null only when its currency is.
 */
function totalsOf<L extends { currency_code: string | null }, K extends keyof L>(
  lines: L[],
  counts: readonly K[],
  money: readonly K[],
): Pick<L, 'currency_code' | K>[] {
  const groups = new Map<string | null, Record<string, unknown>>();
  for (const line of lines) {
    const cur = line.currency_code;
    let total = groups.get(cur);
    if (!total) {
      total = { currency_code: cur };
      for (const k of counts) total[k as string] = 0;
      for (const k of money) total[k as string] = cur === null ? null : { currency_code: cur, amount: '0' };
      groups.set(cur, total);
    }
    for (const k of counts) (total[k as string] as number) += line[k] as number;
    for (const k of money) {
      const v = line[k] as StatementAmount | null;
      const t = total[k as string] as StatementAmount | null;
      if (v && t) t.amount = minorUnits(parseMinorUnits(t.amount) + parseMinorUnits(v.amount));
    }
  }
  const currencies = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  return currencies.map((c) => groups.get(c) as Pick<L, 'currency_code' | K>);
}

/**
 * The CSV form of a statement's lines: a header row of the line's JSON field names (in the schema's
 * order), then one row per line; a money field holds its amount in integer minor units, the line's
 * one currency being the `currency_code` column; null is an empty cell.
 */
function linesCsv(columns: string[], lines: object[]): string {
  // An amount goes in as a BigInt: the writer neutralises text only, so "-4500" stays a number, not "'-4500".
  const cell = (v: unknown) =>
    v === null || v === undefined ? '' : typeof v === 'object' ? parseMinorUnits((v as StatementAmount).amount) : v;
  const rows = lines.map((line) => columns.map((c) => cell((line as Record<string, unknown>)[c])));
  // A title starting with = + - @ would run as a formula in a spreadsheet: the one writer prefixes it with '.
  return csvText([columns, ...(rows as CsvCell[][])], { crlf: true });
}

/** The submission statement as CSV (RFC 4180: CRLF rows, quotes where a title needs them). */
export const submissionStatementCsv = (s: SubmissionStatement) => linesCsv(Object.keys(SubmissionLineSchema.shape), s.statement.offers);

/** The distribution statement as CSV. */
export const distributionStatementCsv = (s: DistributionStatement) =>
  linesCsv(Object.keys(DistributionLineSchema.shape), s.statement.lines);

/**
 * A statement's three files, as GET /statement, /statement.xml and /statement.csv answer it: the
 * same bytes for the same statement (no clock, the schema's field order, the store's line order),
 * so a re-run of a month writes identical files.
 */
export function statementFiles(statement: SubmissionStatement | DistributionStatement): Record<'json' | 'csv' | 'xml', string> {
  if ('offers' in statement.statement) {
    const s = SubmissionStatementSchema.parse(statement);
    return { json: JSON.stringify(s), csv: submissionStatementCsv(s), xml: toXml(s) };
  }
  const d = DistributionStatementSchema.parse(statement);
  return { json: JSON.stringify(d), csv: distributionStatementCsv(d), xml: toXml(d) };
}
