import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The per-unit figures of a sale, fixed on each voucher when it is sold (docs/statements.md
 * "Figures fixed at sale"), so a later edit of the offer's price does not change past statements:
 *
 * - sale_price_amount / sale_price_currency: the offer's `price` (null for a free coupon);
 * - sale_rebate_amount / sale_rebate_currency: its `advertiser_rebate` (null without one);
 * - sale_distributor_revenue / sale_account_revenue: what the distribution view showed per unit,
 *   in the price's currency (domain/money.ts `distributionRevenues` at the deployment's shares).
 *
 * Backfill: vouchers sold before this migration get their offer's price and rebate as they are
 * now. Their revenue columns stay null (a migration does not know the deployment's revenue
 * shares): the statement computes them from the stored price at the current shares.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table vouchers
    add column sale_price_amount bigint,
    add column sale_price_currency text,
    add column sale_rebate_amount bigint,
    add column sale_rebate_currency text,
    add column sale_distributor_revenue bigint,
    add column sale_account_revenue bigint`.execute(db);
  await sql`update vouchers v
    set sale_price_amount = (o.document->'price'->>'amount')::bigint,
        sale_price_currency = o.document->'price'->>'currency_code',
        sale_rebate_amount = (o.document->'advertiser_rebate'->>'amount')::bigint,
        sale_rebate_currency = o.document->'advertiser_rebate'->>'currency_code'
    from offers o
    where o.id = v.offer_id`.execute(db);
  await sql`alter table vouchers
    add constraint vouchers_sale_price check ((sale_price_amount is null) = (sale_price_currency is null)),
    add constraint vouchers_sale_rebate check ((sale_rebate_amount is null) = (sale_rebate_currency is null)),
    add constraint vouchers_sale_revenues check (
      (sale_distributor_revenue is null and sale_account_revenue is null)
      or (sale_price_amount is not null and sale_distributor_revenue is not null and sale_account_revenue is not null))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table vouchers
    drop constraint vouchers_sale_revenues, drop constraint vouchers_sale_rebate, drop constraint vouchers_sale_price,
    drop column sale_account_revenue, drop column sale_distributor_revenue,
    drop column sale_rebate_currency, drop column sale_rebate_amount,
    drop column sale_price_currency, drop column sale_price_amount`.execute(db);
}
