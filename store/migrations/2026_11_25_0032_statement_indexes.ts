import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * What the statement queries (store/statements.ts) look up by time (docs/statements.md "How it is
 * computed"): a distribution client's vouchers sold or cancelled in a period, an advertiser's
 * offers' vouchers cancelled in it (sold in it: vouchers_offer (offer_id, acquired_at) exists),
 * and redemptions made or rolled back in it. The cancellation and rollback indexes are partial:
 * most vouchers are never cancelled, most redemptions never rolled back.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('vouchers_client_acquired').on('vouchers').columns(['client_id', 'acquired_at']).execute();
  await sql`create index vouchers_client_cancelled on vouchers (client_id, cancelled_at) where cancelled_at is not null`.execute(db);
  await sql`create index vouchers_offer_cancelled on vouchers (offer_id, cancelled_at) where cancelled_at is not null`.execute(db);
  await db.schema.createIndex('voucher_redemptions_redeemed').on('voucher_redemptions').column('redeemed_at').execute();
  await sql`create index voucher_redemptions_rolled_back on voucher_redemptions (rolled_back_at) where rolled_back_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'voucher_redemptions_rolled_back',
    'voucher_redemptions_redeemed',
    'vouchers_offer_cancelled',
    'vouchers_client_cancelled',
    'vouchers_client_acquired',
  ])
    await db.schema.dropIndex(name).execute();
}
