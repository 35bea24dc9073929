import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * A retry with the same Idempotency-Key must repeat the whole redeem body, not only its amount
 * (issue 34: the same key without `amount` answered the first redemption). Each redemption made
 * with a key records the body it answered (`request`: domain/redemptions.ts `redeemRequestOf`).
 *
 * Backfill: a deal's or coupon's redemption (amount null) can only have come from
 * `{"voucher":{"status":"redeemed"}}` (an amount is refused for them). A gift card's cannot be told apart
 * (the amount may have been asked or be the whole balance): it stays null, and a retry of it is
 * compared by amount, as before.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('voucher_redemptions').addColumn('request', 'text').execute();
  await sql`update voucher_redemptions set request = '{"voucher":{"status":"redeemed"}}'
    where idempotency_key is not null and amount is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('voucher_redemptions').dropColumn('request').execute();
}
