import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Gift-card balances and redemption rollback (docs/vouchers.md#redemptions).
 *
 * - vouchers.value_amount / value_currency: a gift card's face value, fixed when it is sold (the
 *   offer's `value`, else its `price`); null for deals and coupons. balance_amount: what is left.
 *   CHECKs keep the balance within 0…value and a gift card `redeemed` exactly when it is used up.
 * - voucher_redemptions: one row per redemption (amount null for a deal or coupon), rolled back by
 *   setting rolled_back_at. A deal or coupon has at most one live redemption (partial unique index).
 * - A deferred constraint trigger checks at commit that every gift card's value − balance equals
 *   the sum of its live redemptions, whatever wrote the rows.
 *
 * Backfill: each voucher already redeemed gets one redemption (`rdm_<voucher id>`, at its
 * redeemed_at, the whole value for a gift card); gift cards get their value, and a balance of 0 if
 * redeemed, else the whole value.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table vouchers
    add column value_amount bigint,
    add column value_currency text,
    add column balance_amount bigint`.execute(db);
  await sql`update vouchers v
    set value_amount = (coalesce(o.document->'value', o.document->'price')->>'amount')::bigint,
        value_currency = coalesce(o.document->'value', o.document->'price')->>'currency_code'
    from offers o
    where o.id = v.offer_id and o.type = 'gift_card'
      and (coalesce(o.document->'value', o.document->'price')->>'amount')::bigint > 0`.execute(db);
  await sql`update vouchers set balance_amount = case when status = 'redeemed' then 0 else value_amount end
    where value_amount is not null`.execute(db);
  await sql`alter table vouchers
    add constraint vouchers_gift_card_value check (
      (value_amount is null and value_currency is null and balance_amount is null)
      or (value_amount > 0 and value_currency is not null and balance_amount between 0 and value_amount)),
    add constraint vouchers_gift_card_used_up check (
      balance_amount is null or status = 'cancelled' or ((balance_amount = 0) = (status = 'redeemed')))`.execute(db);

  await db.schema
    .createTable('voucher_redemptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('voucher_id', 'text', (c) => c.notNull().references('vouchers.id'))
    .addColumn('amount', 'bigint', (c) => c.check(sql`amount > 0`))
    .addColumn('currency_code', 'text')
    .addColumn('redeemed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('rolled_back_at', 'timestamptz', (c) => c.check(sql`rolled_back_at >= redeemed_at`))
    .addColumn('idempotency_key', 'text')
    .addCheckConstraint('voucher_redemptions_money', sql`(amount is null) = (currency_code is null)`)
    .addUniqueConstraint('voucher_redemptions_idempotency', ['voucher_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('voucher_redemptions_by_voucher').on('voucher_redemptions').columns(['voucher_id', 'redeemed_at']).execute();
  await sql`create unique index voucher_redemptions_one_live_whole on voucher_redemptions (voucher_id)
    where amount is null and rolled_back_at is null`.execute(db);
  await sql`insert into voucher_redemptions (id, voucher_id, amount, currency_code, redeemed_at)
    select 'rdm_' || id, id, value_amount, value_currency, coalesce(redeemed_at, updated_at)
    from vouchers where status = 'redeemed'`.execute(db);

  await sql`create function voucher_balance_matches() returns trigger language plpgsql as $$
    declare
      -- The voucher's id column, named by the trigger (vouchers.id, voucher_redemptions.voucher_id).
      vid text := to_jsonb(new)->>tg_argv[0];
      v record;
    begin
      select value_amount, balance_amount into v from vouchers where id = vid;
      if v.value_amount is not null and v.value_amount - v.balance_amount <> (
        select coalesce(sum(amount), 0) from voucher_redemptions where voucher_id = vid and rolled_back_at is null) then
        raise exception 'voucher %: value - balance differs from its live redemptions', vid using errcode = '23514';
      end if;
      return null;
    end $$`.execute(db);
  await sql`create constraint trigger voucher_redemptions_balance after insert or update on voucher_redemptions
    deferrable initially deferred for each row execute function voucher_balance_matches('voucher_id')`.execute(db);
  await sql`create constraint trigger vouchers_balance after update of balance_amount on vouchers
    deferrable initially deferred for each row execute function voucher_balance_matches('id')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger vouchers_balance on vouchers`.execute(db);
  await db.schema.dropTable('voucher_redemptions').execute();
  await sql`drop function voucher_balance_matches()`.execute(db);
  await sql`alter table vouchers drop constraint vouchers_gift_card_used_up, drop constraint vouchers_gift_card_value,
    drop column balance_amount, drop column value_currency, drop column value_amount`.execute(db);
}
