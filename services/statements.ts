import { stringify } from 'csv-stringify/sync';
import { distributionRevenues, revenueShares, type Money } from '../domain/money';
import { statementRange } from '../domain/statements';
import {
  DistributionStatementLine as DistributionLineSchema,
  SubmissionStatementLine as SubmissionLineSchema,
  type DistributionStatement,
  type DistributionStatementLine,
  type StatementAmount,
  type StatementQuery,
  type SubmissionStatement,
  type SubmissionStatementLine,
} from '../schemas/statement';
import { distributionStatementRows, submissionStatementRows } from '../store/statements';
import type { ServiceDeps } from './deps';

/*
 * GET /statement (docs/statements.md): the store groups the period's vouchers and redemptions per
 * offer (and account); here each line's counts become money at the offer's per-unit figures, and
 * the totals are the sums of the lines per currency, so they reconcile by construction.
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

/** `units` × the per-unit `amount`, in the line's currency; null when the line has none. */
function times(currency: string | null, units: number, perUnit: number): StatementAmount | null {
  return currency === null ? null : { currency_code: currency, amount: units * perUnit };
}

/** The rebate per unit counted on the line: 0 without one; null when it is in another currency than the line (never converted). */
function rebatePerUnit(currency: string | null, rebate: Money | null): number | null {
  if (!rebate) return 0;
  return rebate.currency_code === currency ? rebate.amount : null;
}

/** The submission client's statement: its own offers with activity in the period. */
export async function submissionStatement(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  q: StatementQuery,
): Promise<SubmissionStatement> {
  const { start, end } = statementRange(q.from, q.to);
  const rows = await submissionStatementRows(deps.db, clientId, start, end);
  const offers: SubmissionStatementLine[] = rows.map((r) => {
    const currency = r.price?.currency_code ?? r.advertiser_rebate?.currency_code ?? null;
    const price = r.price?.amount ?? 0;
    const net = r.sold - r.cancelled;
    const rebate = rebatePerUnit(currency, r.advertiser_rebate);
    return {
      offer_id: r.offer_id,
      title: r.title,
      currency_code: currency,
      vouchers_sold: r.sold,
      vouchers_cancelled: r.cancelled,
      vouchers_redeemed: r.redeemed,
      gross_sales: times(currency, r.sold, price),
      refunds: times(currency, r.cancelled, price),
      net_sales: times(currency, net, price),
      redeemed_amount: times(currency, 1, r.redeemed_amount),
      advertiser_rebate: rebate === null ? null : times(currency, net, rebate),
    };
  });
  return { status: 'OK', statement: { from: q.from, to: q.to, offers, totals: totalsOf(offers, SUBMISSION_COUNTS, SUBMISSION_MONEY) } };
}

/** The distribution client's statement: its own orders' vouchers per offer and account. */
export async function distributionStatement(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  clientId: string,
  q: StatementQuery,
): Promise<DistributionStatement> {
  const { start, end } = statementRange(q.from, q.to);
  const shares = revenueShares(deps.config);
  const rows = await distributionStatementRows(deps.db, clientId, start, end);
  const lines: DistributionStatementLine[] = rows.map((r) => {
    const currency = r.price?.currency_code ?? null;
    const net = r.sold - r.cancelled;
    // The per-unit figures GET /offers shows (schemas/distribution-offer-view.ts), from the one rule.
    const perUnit = distributionRevenues(r.price ?? undefined, shares);
    return {
      offer_id: r.offer_id,
      account_id: r.account_id,
      currency_code: currency,
      vouchers_sold: r.sold,
      vouchers_cancelled: r.cancelled,
      gross_sales: times(currency, r.sold, r.price?.amount ?? 0),
      net_sales: times(currency, net, r.price?.amount ?? 0),
      distributor_revenue: times(currency, net, perUnit.distributor?.amount ?? 0),
      account_revenue: times(currency, net, perUnit.account?.amount ?? 0),
    };
  });
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
      for (const k of money) total[k as string] = cur === null ? null : { currency_code: cur, amount: 0 };
      groups.set(cur, total);
    }
    for (const k of counts) (total[k as string] as number) += line[k] as number;
    for (const k of money) {
      const v = line[k] as StatementAmount | null;
      if (v) (total[k as string] as StatementAmount).amount += v.amount;
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
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? (v as StatementAmount).amount : v);
  const rows = lines.map((line) => columns.map((c) => cell((line as Record<string, unknown>)[c])));
  // A title starting with = + - @ would run as a formula in a spreadsheet: escape_formulas prefixes it with '.
  return stringify([columns, ...rows], { record_delimiter: 'windows', escape_formulas: true });
}

/** The submission statement as CSV (RFC 4180: CRLF rows, quotes where a title needs them). */
export const submissionStatementCsv = (s: SubmissionStatement) => linesCsv(Object.keys(SubmissionLineSchema.shape), s.statement.offers);

/** The distribution statement as CSV. */
export const distributionStatementCsv = (s: DistributionStatement) =>
  linesCsv(Object.keys(DistributionLineSchema.shape), s.statement.lines);
