import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * restrictions.limit_per_customer (issue 20): an order names its customer with the optional
 * `customer_reference` (the publisher's own id for them); each voucher records the customer it
 * was sold to (`customer_key`: `ref:<reference>` or `name:<name trimmed and case-folded>`,
 * domain/offer-terms.ts), so the placing transaction counts a customer's live vouchers of an offer
 * through one index. Null for vouchers sold before.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('customer_reference', 'text').execute();
  await db.schema.alterTable('vouchers').addColumn('customer_key', 'text').execute();
  await db.schema
    .createIndex('vouchers_customer_limit')
    .on('vouchers')
    .columns(['offer_id', 'client_id', 'customer_key'])
    .where(sql.ref('customer_key'), 'is not', null)
    .where(sql.ref('status'), '<>', 'cancelled')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('vouchers_customer_limit').execute();
  await db.schema.alterTable('vouchers').dropColumn('customer_key').execute();
  await db.schema.alterTable('orders').dropColumn('customer_reference').execute();
}
