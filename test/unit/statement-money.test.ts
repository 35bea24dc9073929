import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseCsv } from 'csv-parse/sync';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { distributionRevenues, share } from '../../domain/money';
import { MAX_MONEY_AMOUNT } from '../../schemas/common';
import { MAX_UNITS_PER_ORDER } from '../../schemas/order';
import { DistributionStatement, SubmissionStatement } from '../../schemas/statement';
import { statementFiles, toDistributionStatement, toSubmissionStatement } from '../../schemas/statement-view';
import type { DistributionStatementRow, SubmissionStatementRow } from '../../store/statements';

/*
 * Exact money (issue 34 finding 1, docs/statements.md "Money and rounding"): orders at the price
 * cap × the most units an order takes, cancellations, redemptions and rollbacks, summed the way
 * the store sums them (Postgres numeric, here BigInt), then every format a statement is stated in
 * (the API's JSON serializer, the stored JSON, XML, CSV) compared with BigInt arithmetic, lines
 * and totals. Before, a sum past 2^53 failed the API's serializer and was off by one in the CSV.
 * Pure: no server.
 */

const CAP = MAX_MONEY_AMOUNT;
const Q = { from: '2026-10-01', to: '2026-10-31' };
/** A price, biased to the cap and just under it. */
const price = fc.oneof(fc.constantFrom(CAP, CAP - 1), fc.integer({ min: 0, max: CAP }));
/** A batch of identical events: `orders` orders of `units` units each, at `amount` per unit. */
const batch = (amount: fc.Arbitrary<number>) =>
  fc.record({
    orders: fc.oneof(fc.constant(19), fc.integer({ min: 0, max: 100_000 })),
    units: fc.oneof(fc.constant(MAX_UNITS_PER_ORDER), fc.integer({ min: 1, max: MAX_UNITS_PER_ORDER })),
    amount,
  });
type Batch = { orders: number; units: number; amount: number };
const units = (bs: Batch[]) => bs.reduce((n, b) => n + b.orders * b.units, 0);
const sum = (bs: Batch[], per: (amount: number) => number = (a) => a) =>
  bs.reduce((s, b) => s + BigInt(b.orders) * BigInt(b.units) * BigInt(per(b.amount)), 0n);
const currency = fc.constantFrom('USD', 'EUR', 'JPY', null);

const submissionLine = fc.record({
  currency,
  sold: fc.array(batch(price), { maxLength: 3 }),
  cancelled: fc.array(batch(price), { maxLength: 3 }),
  // Gift-card redemptions and their rollbacks: one per voucher, up to the value cap each.
  redeemed: fc.array(batch(price), { maxLength: 2 }),
  rolledBack: fc.array(batch(price), { maxLength: 2 }),
  rebate: fc.option(price, { nil: null }),
});
type SubmissionModel = typeof submissionLine extends fc.Arbitrary<infer T> ? T : never;

const distributionLine = fc.record({
  currency,
  sold: fc.array(batch(price), { maxLength: 3 }),
  cancelled: fc.array(batch(price), { maxLength: 3 }),
});
type DistributionModel = typeof distributionLine extends fc.Arbitrary<infer T> ? T : never;
/** Revenue shares as the settings accept them: 0–100, with decimals. */
const percent = fc.oneof(
  fc.constantFrom(0, 20, 50, 33.3, 12.5, 100),
  fc.integer({ min: 0, max: 10_000 }).map((n) => n / 100),
);

/** What a line states, in BigInt: the reference every format is compared with. */
function submissionFigures(m: SubmissionModel) {
  const free = m.currency === null;
  const gross = free ? 0n : sum(m.sold);
  const refunds = free ? 0n : sum(m.cancelled);
  const net = BigInt(units(m.sold) - units(m.cancelled));
  return {
    counts: {
      vouchers_sold: units(m.sold),
      vouchers_cancelled: units(m.cancelled),
      vouchers_redeemed: units(m.redeemed) - units(m.rolledBack),
    },
    money: {
      gross_sales: gross,
      refunds,
      net_sales: gross - refunds,
      redeemed_amount: free ? 0n : sum(m.redeemed) - sum(m.rolledBack),
      advertiser_rebate: m.rebate === null ? null : net * BigInt(m.rebate),
    } as Record<string, bigint | null>,
  };
}

function distributionFigures(m: DistributionModel, shares: { distributorPercent: number; accountPercent: number }) {
  const gross = m.currency === null ? 0n : sum(m.sold);
  const refunds = m.currency === null ? 0n : sum(m.cancelled);
  const revenue = (which: 'distributor' | 'account') => (a: number) =>
    distributionRevenues({ currency_code: 'USD', amount: a }, shares)[which]?.amount ?? 0;
  const net = (which: 'distributor' | 'account') => sum(m.sold, revenue(which)) - sum(m.cancelled, revenue(which));
  return {
    counts: { vouchers_sold: units(m.sold), vouchers_cancelled: units(m.cancelled) },
    money: {
      gross_sales: gross,
      net_sales: gross - refunds,
      distributor_revenue: m.currency === null ? 0n : net('distributor'),
      account_revenue: m.currency === null ? 0n : net('account'),
    } as Record<string, bigint | null>,
  };
}

type Figures = ReturnType<typeof submissionFigures>;

/** The per-currency totals of the reference lines, in BigInt. */
function totalsOf(lines: Array<{ currency: string | null; figures: Figures }>) {
  const totals = new Map<string | null, { counts: Record<string, number>; money: Record<string, bigint> }>();
  for (const { currency: c, figures } of lines) {
    const t = totals.get(c) ?? { counts: {}, money: {} };
    for (const [k, v] of Object.entries(figures.counts)) t.counts[k] = (t.counts[k] ?? 0) + v;
    // A null figure (a rebate in another currency) adds nothing to its total.
    for (const [k, v] of Object.entries(figures.money)) t.money[k] = (t.money[k] ?? 0n) + (v ?? 0n);
    totals.set(c, t);
  }
  return totals as Map<string | null, Figures>;
}

/** Checks one stated line (JSON or XML, amounts as strings) against its reference figures. */
function expectLine(stated: Record<string, unknown>, currency: string | null, f: Figures) {
  for (const [k, v] of Object.entries(f.counts)) expect(Number(stated[k])).toBe(v);
  for (const [k, v] of Object.entries(f.money)) {
    const amount = stated[k] as { currency_code: string; amount: string } | '' | null;
    if (currency === null || v === null) expect(amount || null).toBeNull();
    else expect(amount).toEqual({ currency_code: currency, amount: v.toString() });
  }
}

const xml = new XMLParser({ parseTagValue: false, isArray: (name) => ['offer', 'line', 'total'].includes(name) });
const serialize = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/statement', httpStatus: '200' });

/** Every format of the statement (the API's serializer, the stored JSON, XML, CSV) against the reference. */
function expectStatement(
  statement: SubmissionStatement | DistributionStatement,
  schema: z.ZodType,
  key: 'offers' | 'lines',
  lines: Array<{ currency: string | null; figures: Figures }>,
) {
  const files = statementFiles(statement);
  const api = serialize(schema)(statement);
  expect(api).toBe(files.json);
  // Every JSON number is a count, exact as a double; every amount is a string.
  for (const n of api.match(/-?\d+(?=[,}\]])/g) ?? []) expect(Number.isSafeInteger(Number(n))).toBe(true);
  const fromXml = xml.parse(files.xml).response.statement;
  const csv = parseCsv(files.csv, { columns: true }) as Record<string, string>[];
  const json = JSON.parse(api).statement;
  for (const [i, { currency, figures }] of lines.entries()) {
    expectLine(json[key][i], currency, figures);
    expectLine(fromXml[key]?.[key === 'offers' ? 'offer' : 'line'][i], currency, figures);
    for (const [k, v] of Object.entries(figures.counts)) expect(csv[i][k]).toBe(String(v));
    for (const [k, v] of Object.entries(figures.money)) expect(csv[i][k]).toBe(currency === null || v === null ? '' : v.toString());
  }
  const totals = totalsOf(lines);
  const order = [...totals.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : 1));
  expect(json.totals.map((t: { currency_code: string | null }) => t.currency_code)).toEqual(order);
  for (const [i, c] of order.entries()) {
    const t = totals.get(c) as Figures;
    // A total's money is null only when its currency is: a foreign rebate adds nothing.
    expectLine(json.totals[i], c, t);
    expectLine(fromXml.totals.total[i], c, t);
  }
}

describe('statement money is exact at the caps, in every format', () => {
  it('submission: sales, cancellations, redemptions and rollbacks past 2^53', () => {
    fc.assert(
      fc.property(fc.array(submissionLine, { minLength: 1, maxLength: 5 }), (models) => {
        const lines = models.map((m) => ({ currency: m.currency, figures: submissionFigures(m) }));
        const rows: SubmissionStatementRow[] = lines.map(({ currency, figures: f }, i) => ({
          offer_id: `ofr_${i}`,
          title: `-${i} at the cap`,
          currency,
          sold: f.counts.vouchers_sold,
          cancelled: f.counts.vouchers_cancelled,
          redeemed: f.counts.vouchers_redeemed,
          gross: f.money.gross_sales as bigint,
          refunds: f.money.refunds as bigint,
          redeemed_amount: f.money.redeemed_amount as bigint,
          rebate: f.money.advertiser_rebate,
        }));
        expectStatement(toSubmissionStatement(Q, rows), SubmissionStatement, 'offers', lines);
      }),
      { numRuns: 200 },
    );
  });

  it('distribution: revenues per unit at any shares, net of cancellations, past 2^53', () => {
    fc.assert(
      fc.property(fc.array(distributionLine, { minLength: 1, maxLength: 5 }), percent, percent, (models, d, a) => {
        const shares = { distributorPercent: d, accountPercent: a };
        const lines = models.map((m) => ({ currency: m.currency, figures: distributionFigures(m, shares) as Figures }));
        const rows: DistributionStatementRow[] = lines.map(({ currency, figures: f }, i) => ({
          offer_id: `ofr_${i}`,
          account_id: null,
          currency,
          sold: f.counts.vouchers_sold,
          cancelled: f.counts.vouchers_cancelled,
          gross: f.money.gross_sales as bigint,
          refunds: (f.money.gross_sales as bigint) - (f.money.net_sales as bigint),
          distributor_revenue: f.money.distributor_revenue as bigint,
          account_revenue: f.money.account_revenue as bigint,
        }));
        expectStatement(toDistributionStatement(Q, rows), DistributionStatement, 'lines', lines);
      }),
      { numRuns: 200 },
    );
  });

  it("the issue's figures: 9,009 units at 999,999,999,999 is 9008999999990991 in JSON, XML and CSV", () => {
    const gross = 9009n * 999_999_999_999n;
    const row = { offer_id: 'ofr_1', account_id: null, currency: 'EUR', sold: 9009, cancelled: 0 };
    const s = toDistributionStatement(Q, [{ ...row, gross, refunds: 0n, distributor_revenue: 0n, account_revenue: 0n }]);
    const files = statementFiles(s);
    expect(serialize(DistributionStatement)(s)).toContain('"gross_sales":{"currency_code":"EUR","amount":"9008999999990991"}');
    expect(files.xml).toContain('<gross_sales><currency_code>EUR</currency_code><amount>9008999999990991</amount></gross_sales>');
    expect(files.csv.split('\r\n')[1]).toBe('ofr_1,,EUR,9009,0,9008999999990991,9008999999990991,0,0');
  });

  it('a revenue share is the floor of the exact product, at any price and any percent the settings accept', () => {
    fc.assert(
      fc.property(price, fc.integer({ min: 0, max: 10_000 }), (amount, hundredths) => {
        const exact = (BigInt(amount) * BigInt(hundredths)) / 10_000n;
        expect(share(amount, hundredths / 100)).toBe(Number(exact));
      }),
    );
    // A float product is 1 short here: 3000 × 33.3 / 100 = 998.9999999999999.
    expect(share(3000, 33.3)).toBe(999);
  });
});
