import { z } from 'zod';
import { STATEMENT_MAX_DAYS, statementDays } from '../domain/statements';
import { DateString, once } from './common';

/*
 * GET /statement on both interfaces (docs/statements.md): what was sold, cancelled and redeemed in
 * a period of whole UTC days, per offer (submission) or per offer and account (distribution), and
 * totals per currency. JSON and XML from these schemas; CSV from the same lines (services/statements.ts).
 */

/** The period: `from` and `to` inclusive UTC days, `to` not before `from`, at most STATEMENT_MAX_DAYS days. */
export const StatementQuery = z
  .object({
    from: once(DateString).describe('First day of the period (UTC, inclusive), YYYY-MM-DD'),
    to: once(DateString).describe(
      `Last day of the period (UTC, inclusive), YYYY-MM-DD; at most ${STATEMENT_MAX_DAYS} days after from counted inclusively`,
    ),
  })
  .superRefine((q, ctx) => {
    const days = statementDays(q.from, q.to);
    if (days < 1) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    else if (days > STATEMENT_MAX_DAYS)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `the period is ${days} days; a statement covers at most ${STATEMENT_MAX_DAYS}`,
      });
  });
export type StatementQuery = z.infer<typeof StatementQuery>;

/**
 * A statement figure: integer minor units in the line's currency, written as a decimal string. A
 * sum over a period has no bound (a price of up to 10^12 minor units times any number of vouchers),
 * and a JSON number past 2^53 is not exact in most readers, so every statement amount is a string:
 * exact whatever its size (docs/statements.md "Money and rounding"). Unlike an offer's Currency it
 * may be negative: a period's cancellations (or rollbacks) can be of vouchers sold (or redeemed) before it.
 */
export const StatementAmount = z.object({
  currency_code: z.string(),
  amount: z
    .string()
    .regex(/^-?(0|[1-9][0-9]*)$/)
    .describe(
      'Integer minor units (cents) as a decimal string, "-" when negative (e.g. "9008999999990991"): a sum has no upper bound, so it is a string to stay exact past 2^53; parse it as a big integer or decimal, never a float',
    ),
});
export type StatementAmount = z.infer<typeof StatementAmount>;

const money = (what: string) =>
  StatementAmount.nullable().describe(`${what}; null when the line has no currency (a free coupon without a rebate)`);
const count = (what: string) => z.number().int().describe(what);

const currency = z
  .string()
  .nullable()
  .describe("The line's one currency: the offer's price currency (else its rebate's); null for a free coupon without a rebate");

const submissionFigures = {
  currency_code: currency,
  vouchers_sold: count('Vouchers issued in the period'),
  vouchers_cancelled: count('Vouchers cancelled in the period (whenever sold)'),
  vouchers_redeemed: count(
    'Redemptions made in the period less those rolled back in it; each partial redemption of a gift card counts once',
  ),
  gross_sales: money('vouchers_sold × price (each voucher at the price it was sold at)'),
  refunds: money('vouchers_cancelled × price (each voucher at the price it was sold at)'),
  net_sales: money('gross_sales − refunds'),
  redeemed_amount: money('Gift-card amounts redeemed in the period less those rolled back in it; 0 for deals and coupons'),
  advertiser_rebate: money(
    "(vouchers_sold − vouchers_cancelled) × the offer's advertiser_rebate at the sale; 0 without one; null if the rebate is in another currency than the price",
  ),
};

const distributionFigures = {
  currency_code: currency,
  vouchers_sold: count('Vouchers this client ordered in the period'),
  vouchers_cancelled: count("Of this client's vouchers, those cancelled in the period (whenever sold)"),
  gross_sales: money('vouchers_sold × price (each voucher at the price it was sold at)'),
  net_sales: money('(vouchers_sold − vouchers_cancelled) × price'),
  distributor_revenue: money("(vouchers_sold − vouchers_cancelled) × the offer's distributor_revenue as GET /offers showed it at the sale"),
  account_revenue: money("(vouchers_sold − vouchers_cancelled) × the offer's account_revenue as GET /offers showed it at the sale"),
};

export const SubmissionStatementLine = z.object({ offer_id: z.string(), title: z.string(), ...submissionFigures });
export type SubmissionStatementLine = z.infer<typeof SubmissionStatementLine>;
export const SubmissionStatementTotal = z.object(submissionFigures);
export type SubmissionStatementTotal = z.infer<typeof SubmissionStatementTotal>;

export const DistributionStatementLine = z.object({
  offer_id: z.string(),
  account_id: z.string().nullable().describe('The account the orders named; null for orders without one'),
  ...distributionFigures,
});
export type DistributionStatementLine = z.infer<typeof DistributionStatementLine>;
export const DistributionStatementTotal = z.object(distributionFigures);
export type DistributionStatementTotal = z.infer<typeof DistributionStatementTotal>;

const period = { from: z.string(), to: z.string() };

export const SubmissionStatement = z.object({
  status: z.literal('OK'),
  statement: z.object({
    ...period,
    offers: z.array(SubmissionStatementLine).describe('One line per own offer with a sale, cancellation or redemption in the period'),
    totals: z.array(SubmissionStatementTotal).describe('One entry per currency: each field the sum of the lines in that currency'),
  }),
});
export type SubmissionStatement = z.infer<typeof SubmissionStatement>;

export const DistributionStatement = z.object({
  status: z.literal('OK'),
  statement: z.object({
    ...period,
    lines: z
      .array(DistributionStatementLine)
      .describe('One line per offer and account with a sale or cancellation of this client in the period'),
    totals: z.array(DistributionStatementTotal).describe('One entry per currency: each field the sum of the lines in that currency'),
  }),
});
export type DistributionStatement = z.infer<typeof DistributionStatement>;
