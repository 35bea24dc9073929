import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Stable advertiser ids, advertiser-supplied voucher codes, barcode lookup and customer voucher
// pages (docs/vouchers.md, docs/resources.md).

export async function up(db: Kysely<any>): Promise<void> {
  // One row per advertiser of a submission client; its id outlives renames.
  await db.schema
    .createTable('advertisers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // A name names one advertiser of a client (stored trimmed, compared case-insensitively).
  await sql`create unique index advertisers_client_name on advertisers (client_id, lower(name))`.execute(db);
  // Backfill: every advertiser id already in use keeps its value (integrations call
  // /advertisers/:advertiser_id/...), named as its most recently changed offer names it.
  await sql`
    insert into advertisers (id, client_id, name, created_at, updated_at)
    select distinct on (advertiser_id)
      advertiser_id, client_id, regexp_replace(document->'advertiser'->>'name', '^\\s+|\\s+$', '', 'g'), created_at, updated_at
    from offers
    order by advertiser_id, updated_at desc`.execute(db);
  await db.schema.alterTable('offers').addForeignKeyConstraint('offers_advertiser_fk', ['advertiser_id'], 'advertisers', ['id']).execute();

  // Codes an advertiser supplied for an offer; each becomes one voucher, oldest first, once.
  await db.schema
    .createTable('supplied_vouchers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id'))
    .addColumn('advertiser_id', 'text', (c) => c.notNull().references('advertisers.id'))
    // Upload order: vouchers are handed out first-in first-out by this.
    .addColumn('sequence', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('redemption_code', 'text', (c) => c.notNull())
    .addColumn('barcode', 'text')
    // Set once the code is issued: the voucher carrying it has this row's id.
    .addColumn('order_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // No code twice for one advertiser, whichever offer it came with, even under racing uploads.
    .addUniqueConstraint('supplied_vouchers_advertiser_code', ['advertiser_id', 'redemption_code'])
    .execute();
  await sql`create index supplied_vouchers_unused on supplied_vouchers (offer_id, sequence) where order_id is null`.execute(db);
  // Read with the offer's lock when placing an order, so orders of the other offers (nearly all)
  // spend no round trip looking for supplied codes.
  await db.schema
    .alterTable('offers')
    .addColumn('sells_supplied_codes', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.createIndex('supplied_vouchers_offer').on('supplied_vouchers').columns(['offer_id', 'sequence']).execute();

  await db.schema
    .alterTable('vouchers')
    // Whether the code came from the advertiser (supplied_vouchers) rather than from us.
    .addColumn('supplied', 'boolean', (c) => c.notNull().defaultTo(false))
    // The secret part of the customer's voucher page address; replaced to revoke the old address.
    .addColumn('page_token', 'text', (c) =>
      c.notNull().defaultTo(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`),
    )
    .execute();
  await db.schema.createIndex('vouchers_page_token').on('vouchers').column('page_token').unique().execute();
  // Supplied codes are unique per advertiser only (two advertisers may both supply "SAVE10"), so the
  // global uniqueness of generated codes gives way to lookup indexes.
  await sql`alter table vouchers drop constraint vouchers_redemption_code_key`.execute(db);
  await db.schema.createIndex('vouchers_redemption_code').on('vouchers').column('redemption_code').execute();
  await db.schema.createIndex('vouchers_barcode').on('vouchers').column('barcode').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('vouchers_barcode').execute();
  await db.schema.dropIndex('vouchers_redemption_code').execute();
  await sql`alter table vouchers add constraint vouchers_redemption_code_key unique (redemption_code)`.execute(db);
  await db.schema.alterTable('vouchers').dropColumn('page_token').dropColumn('supplied').execute();
  await db.schema.alterTable('offers').dropColumn('sells_supplied_codes').execute();
  await db.schema.dropTable('supplied_vouchers').execute();
  await db.schema.alterTable('offers').dropConstraint('offers_advertiser_fk').execute();
  await db.schema.dropTable('advertisers').execute();
}
