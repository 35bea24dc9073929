import { sql } from 'kysely';
import type { Db } from './db';
import type { Money } from '../domain/money';

/*
 * The statement reads (docs/statements.md): one set-based query per statement over vouchers,
 * voucher_redemptions and offers, grouped in Postgres, so a period of a million vouchers is one
 * scan, never a loop per voucher. Each event counts in the period its own time falls in: a sale
 * at acquired_at, a cancellation at cancelled_at, a redemption at redeemed_at and its rollback (a
 * negative) at rolled_back_at, so a past period's figures never change.
 */

/** An offer's counts in a period, with the offer's price and rebate as it stands now. */
export interface SubmissionStatementRow {
  offer_id: string;
  title: string;
  price: Money | null;
  advertiser_rebate: Money | null;
  sold: number;
  cancelled: number;
  redeemed: number;
  redeemed_amount: number;
}

/** One offer and account's counts of one distribution client in a period, with the offer's price. */
export interface DistributionStatementRow {
  offer_id: string;
  account_id: string | null;
  price: Money | null;
  sold: number;
  cancelled: number;
}

/** Per own offer of the submission client: vouchers sold and cancelled, redemptions net of rollbacks and their gift-card amounts. */
export async function submissionStatementRows(db: Db, clientId: string, start: Date, end: Date): Promise<SubmissionStatementRow[]> {
  const { rows } = await sql<Record<string, unknown>>`
    with sales as (
      select v.offer_id,
        count(*) filter (where v.acquired_at >= ${start} and v.acquired_at < ${end}) as sold,
        count(*) filter (where v.cancelled_at >= ${start} and v.cancelled_at < ${end}) as cancelled
      from vouchers v join offers o on o.id = v.offer_id
      where o.client_id = ${clientId}
        and ((v.acquired_at >= ${start} and v.acquired_at < ${end}) or (v.cancelled_at >= ${start} and v.cancelled_at < ${end}))
      group by v.offer_id
    ), redemptions as (
      select v.offer_id,
        count(*) filter (where r.redeemed_at >= ${start} and r.redeemed_at < ${end})
          - count(*) filter (where r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}) as redeemed,
        coalesce(sum(r.amount) filter (where r.redeemed_at >= ${start} and r.redeemed_at < ${end}), 0)
          - coalesce(sum(r.amount) filter (where r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}), 0) as redeemed_amount
      from voucher_redemptions r join vouchers v on v.id = r.voucher_id join offers o on o.id = v.offer_id
      where o.client_id = ${clientId}
        and ((r.redeemed_at >= ${start} and r.redeemed_at < ${end}) or (r.rolled_back_at >= ${start} and r.rolled_back_at < ${end}))
      group by v.offer_id
    )
    select o.id as offer_id, o.document->>'title' as title, o.document->'price' as price,
      o.document->'advertiser_rebate' as advertiser_rebate,
      coalesce(s.sold, 0) as sold, coalesce(s.cancelled, 0) as cancelled,
      coalesce(r.redeemed, 0) as redeemed, coalesce(r.redeemed_amount, 0) as redeemed_amount
    from sales s full join redemptions r on r.offer_id = s.offer_id
    join offers o on o.id = coalesce(s.offer_id, r.offer_id)
    order by o.id collate "C"`.execute(db);
  return rows.map((r) => ({
    offer_id: String(r.offer_id),
    title: String(r.title),
    price: (r.price as Money | null) ?? null,
    advertiser_rebate: (r.advertiser_rebate as Money | null) ?? null,
    sold: Number(r.sold),
    cancelled: Number(r.cancelled),
    redeemed: Number(r.redeemed),
    redeemed_amount: Number(r.redeemed_amount),
  }));
}

/** Per offer and account of the distribution client's own vouchers (orders it placed): sold and cancelled in the period. */
export async function distributionStatementRows(db: Db, clientId: string, start: Date, end: Date): Promise<DistributionStatementRow[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select v.offer_id, v.account_id, o.document->'price' as price,
      count(*) filter (where v.acquired_at >= ${start} and v.acquired_at < ${end}) as sold,
      count(*) filter (where v.cancelled_at >= ${start} and v.cancelled_at < ${end}) as cancelled
    from vouchers v join offers o on o.id = v.offer_id
    where v.client_id = ${clientId}
      and ((v.acquired_at >= ${start} and v.acquired_at < ${end}) or (v.cancelled_at >= ${start} and v.cancelled_at < ${end}))
    group by v.offer_id, v.account_id, o.document->'price'
    order by v.offer_id collate "C", v.account_id collate "C" nulls first`.execute(db);
  return rows.map((r) => ({
    offer_id: String(r.offer_id),
    account_id: r.account_id == null ? null : String(r.account_id),
    price: (r.price as Money | null) ?? null,
    sold: Number(r.sold),
    cancelled: Number(r.cancelled),
  }));
}
