import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Accounts, orders, vouchers and reservations of the distribution interface (docs/orders-and-vouchers.md).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('website_url', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'active', 'cancelled')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('activated_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('accounts_client').on('accounts').columns(['client_id', 'created_at']).execute();

  await db.schema
    .createTable('reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('quantity_reserved', 'integer', (c) => c.notNull().check(sql`quantity_reserved >= 0`))
    // Units still held for the account (reserved minus sold through it); 0 once released.
    .addColumn('quantity_in_stock', 'integer', (c) => c.notNull().check(sql`quantity_in_stock >= 0`))
    .addColumn('start_date', 'date', (c) => c.notNull())
    .addColumn('end_date', 'date', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'cancelled', 'expired')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('reservations_offer_account').on('reservations').columns(['offer_id', 'account_id', 'status']).execute();
  await db.schema.createIndex('reservations_client').on('reservations').columns(['client_id', 'offer_id', 'created_at']).execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('order_number', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('application_id', 'text')
    .addColumn('customer_name', 'text', (c) => c.notNull())
    .addColumn('shipping_address', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'cancelled')`))
    .addColumn('purchased_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('cancelled_at', 'timestamptz')
    .addUniqueConstraint('orders_client_number', ['client_id', 'order_number'])
    .execute();
  await db.schema.createIndex('orders_client_purchased').on('orders').columns(['client_id', 'purchased_at']).execute();

  await db.schema
    .createTable('order_items')
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id'))
    .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity >= 1`))
    .addPrimaryKeyConstraint('order_items_pk', ['order_id', 'position'])
    .execute();

  await db.schema
    .createTable('vouchers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    // The distribution client that sold it, and the account / reservation it was sold through.
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('account_id', 'text')
    .addColumn('reservation_id', 'text')
    // Whether issuing it took a unit of the offer's stock (false for uncapped coupons).
    .addColumn('counts_stock', 'boolean', (c) => c.notNull())
    .addColumn('redemption_code', 'text', (c) => c.notNull().unique())
    .addColumn('barcode', 'text', (c) => c.notNull())
    .addColumn('customer_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('acquired', 'redeemed', 'cancelled')`))
    .addColumn('expiration_date', 'date')
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('redeemed_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('vouchers_offer').on('vouchers').columns(['offer_id', 'acquired_at']).execute();
  await db.schema.createIndex('vouchers_order').on('vouchers').column('order_id').execute();
  await db.schema.createIndex('vouchers_updated').on('vouchers').column('updated_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['vouchers', 'order_items', 'orders', 'reservations', 'accounts']) await db.schema.dropTable(t).execute();
}
