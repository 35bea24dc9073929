import { sql } from 'kysely';
import type { Db } from './db';
import { parseMinorUnits, type RevenueShares } from '../domain/money';

/*
 * The statement reads (docs/statements.md): one set-based query per statement over vouchers,
 * voucher_redemptions and offers, grouped in Postgres, so a period of a million vouchers is one
 * scan, never a loop per voucher. Each event counts in the period its own time falls in: a sale
 * at acquired_at, a cancellation at cancelled_at, a redemption at redeemed_at and its rollback (a
 * negative) at rolled_back_at; money comes from the per-unit figures each voucher keeps from its
 * sale (migration 0031), so a past period's figures never change. Sums are Postgres `numeric`
 * (sum of bigint) read as text and carried as BigInt: the pool's parser reads numeric as a JS number,
 * which is not exact past 2^53 (docs/statements.md "Money and rounding"). Counts are row counts.
 */

/**
 * What a cancelled voucher gives back of a per-unit figure (price, rebate, revenue): all of it, but
 * for a gift card cancelled partly spent only the unspent part, balance / value of it rounded down
 * (its balance stays as its cancellation voided it): what was spent stays sold.
 */
const refunded = (figure: ReturnType<typeof sql>) =>
  sql`floor(${figure} * coalesce(v.balance_amount, 1)::numeric / coalesce(v.value_amount, 1))`;

/**
 * An offer's figures in a period, in one currency (an offer whose price changed currency between
 * sales has a line per currency). Money is summed from the per-unit figures each voucher keeps
 * from its sale, in integer minor units.
 */
export interface SubmissionStatementRow {
  offer_id: string;
  title: string;
  /** The sale's price currency, else its rebate's; null for a free coupon without a rebate. */
  currency: string | null;
  sold: number;
  cancelled: number;
  redeemed: number;
  /** Sum of the sold vouchers' prices, and of the cancelled ones' (sums are BigInt: they pass 2^53). */
  gross: bigint;
  refunds: bigint;
  redeemed_amount: bigint;
  /** Sold less cancelled vouchers' rebates; null when a voucher's rebate is in another currency than the line. */
  rebate: bigint | null;
}

/** One offer and account's figures of one distribution client in a period, in the sale price's currency. */
export interface DistributionStatementRow {
  offer_id: string;
  account_id: string | null;
  currency: string | null;
  sold: number;
  cancelled: number;
  gross: bigint;
  refunds: bigint;
  /** Sold less cancelled vouchers' per-unit revenues. */
  distributor_revenue: bigint;
  account_revenue: bigint;
}

/** Per own offer (and currency) of the submission client: vouchers sold and cancelled, redemptions net of rollbacks and their gift-card amounts. */
export async function submissionStatementRows(db: Db, clientId: string, start: Date, end: Date): Promise<SubmissionStatementRow[]> {
  const sold = sql`(v.acquired_at >= ${start} and v.acquired_at < ${end})`;
  const cancelled = sql`(v.cancelled_at >= ${start} and v.cancelled_at < ${end})`;
  const currency = sql`coalesce(v.sale_price_currency, v.sale_rebate_currency)`;
  // A rebate counts in the line's currency; one in another currency is never converted (null).
  const rebate = sql`case when v.sale_rebate_currency is null then 0 when v.sale_rebate_currency = ${currency} then v.sale_rebate_amount end`;
  const { rows } = await sql<Record<string, unknown>>`
    with sales as (
      select v.offer_id, ${currency} as currency,
        count(*) filter (where ${sold}) as sold,
        count(*) filter (where ${cancelled}) as cancelled,
        coalesce(sum(v.sale_price_amount) filter (where ${sold}), 0) as gross,
        coalesce(sum(${refunded(sql`v.sale_price_amount`)}) filter (where ${cancelled}), 0) as refunds,
        coalesce(sum(${rebate}) filter (where ${sold}), 0) - coalesce(sum(${refunded(rebate)}) filter (where ${cancelled}), 0) as rebate,
        bool_or(${rebate} is null) as foreign_rebate
      from vouchers v join offers o on o.id = v.offer_id
      where o.client_id = ${clientId} and (${sold} or ${cancelled})
      group by 1, 2
    ), redemptions as (
      select v.offer_id, ${currency} as currency,
        count(*) filter (where r.redeemed_at >= ${start} and r.redeemed_at < ${end})
          - count(*) filter (where r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}) as redeemed,
        coalesce(sum(r.amount) filter (where r.redeemed_at >= ${start} and r.redeemed_at < ${end}), 0)
          - coalesce(sum(r.amount) filter (where r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}), 0) as redeemed_amount
      from voucher_redemptions r join vouchers v on v.id = r.voucher_id join offers o on o.id = v.offer_id
      where o.client_id = ${clientId}
        and ((r.redeemed_at >= ${start} and r.redeemed_at < ${end}) or (r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}))
      group by 1, 2
    )
    select o.id as offer_id, o.document->>'title' as title, coalesce(s.currency, r.currency) as currency,
      coalesce(s.sold, 0) as sold, coalesce(s.cancelled, 0) as cancelled,
      coalesce(s.gross, 0)::text as gross, coalesce(s.refunds, 0)::text as refunds,
      (case when s.foreign_rebate then null else coalesce(s.rebate, 0) end)::text as rebate,
      coalesce(r.redeemed, 0) as redeemed, coalesce(r.redeemed_amount, 0)::text as redeemed_amount
    from sales s full join redemptions r on r.offer_id = s.offer_id and coalesce(r.currency, '') = coalesce(s.currency, '')
    join offers o on o.id = coalesce(s.offer_id, r.offer_id)
    order by o.id collate "C", coalesce(s.currency, r.currency) collate "C" nulls last`.execute(db);
  return rows.map((r) => ({
    offer_id: String(r.offer_id),
    title: String(r.title),
    currency: r.currency == null ? null : String(r.currency),
    sold: Number(r.sold),
    cancelled: Number(r.cancelled),
    redeemed: Number(r.redeemed),
    gross: parseMinorUnits(String(r.gross)),
    refunds: parseMinorUnits(String(r.refunds)),
    redeemed_amount: parseMinorUnits(String(r.redeemed_amount)),
    rebate: r.rebate == null ? null : parseMinorUnits(String(r.rebate)),
  }));
}

/**
 * Per offer and account of the distribution client's own vouchers (orders it placed): sold and
 * cancelled in the period, with money from each voucher's figures at sale. A voucher sold before
 * those were stored (revenues null) earns its stored price's share at `shares`, rounded down per
 * unit as domain/money.ts `share` does.
 */
export async function distributionStatementRows(
  db: Db,
  clientId: string,
  start: Date,
  end: Date,
  shares: RevenueShares,
): Promise<DistributionStatementRow[]> {
  const sold = sql`(v.acquired_at >= ${start} and v.acquired_at < ${end})`;
  const cancelled = sql`(v.cancelled_at >= ${start} and v.cancelled_at < ${end})`;
  const distributorShare = sql`floor(v.sale_price_amount * ${shares.distributorPercent}::numeric / 100)`;
  const distributor = sql`coalesce(v.sale_distributor_revenue, ${distributorShare})`;
  const account = sql`coalesce(v.sale_account_revenue, floor(${distributorShare} * ${shares.accountPercent}::numeric / 100))`;
  const net = (figure: ReturnType<typeof sql>) =>
    sql`coalesce(sum(${figure}) filter (where ${sold}), 0) - coalesce(sum(${refunded(figure)}) filter (where ${cancelled}), 0)`;
  const { rows } = await sql<Record<string, unknown>>`
    select v.offer_id, v.account_id, v.sale_price_currency as currency,
      count(*) filter (where ${sold}) as sold,
      count(*) filter (where ${cancelled}) as cancelled,
      coalesce(sum(v.sale_price_amount) filter (where ${sold}), 0)::text as gross,
      coalesce(sum(${refunded(sql`v.sale_price_amount`)}) filter (where ${cancelled}), 0)::text as refunds,
      (${net(distributor)})::text as distributor_revenue,
      (${net(account)})::text as account_revenue
    from vouchers v
    where v.client_id = ${clientId} and (${sold} or ${cancelled})
    group by 1, 2, 3
    order by v.offer_id collate "C", v.account_id collate "C" nulls first, v.sale_price_currency collate "C" nulls last`.execute(db);
  return rows.map((r) => ({
    offer_id: String(r.offer_id),
    account_id: r.account_id == null ? null : String(r.account_id),
    currency: r.currency == null ? null : String(r.currency),
    sold: Number(r.sold),
    cancelled: Number(r.cancelled),
    gross: parseMinorUnits(String(r.gross)),
    refunds: parseMinorUnits(String(r.refunds)),
    distributor_revenue: parseMinorUnits(String(r.distributor_revenue)),
    account_revenue: parseMinorUnits(String(r.account_revenue)),
  }));
}
