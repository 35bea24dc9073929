import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('attachments_client').on('attachments').columns(['client_id', 'created_at']).execute();

  await db.schema
    .createTable('offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('advertiser_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('start_date', 'date', (c) => c.notNull())
    .addColumn('end_date', 'date', (c) => c.notNull())
    .addColumn('price_amount', 'bigint')
    .addColumn('currency_code', 'text')
    .addColumn('initial_quantity', 'integer')
    // Unsold, unreserved units; null = unlimited (coupons without a cap). Never negative.
    .addColumn('quantity_in_stock', 'integer', (c) => c.check(sql`quantity_in_stock >= 0`))
    // Units held by active reservations, outside quantity_in_stock.
    .addColumn('reserved_quantity', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`reserved_quantity >= 0`),
    )
    // The advertiser's fields as validated (the offer schema), so every field round-trips exactly.
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('event_sequence', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('submitted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('reviewed_at', 'timestamptz')
    .addColumn('reviewed_by', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('published_at', 'timestamptz')
    .addColumn('closed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('offers_client').on('offers').columns(['client_id', 'created_at']).execute();
  await db.schema.createIndex('offers_advertiser').on('offers').columns(['advertiser_id']).execute();
  await db.schema
    .createIndex('offers_sellable')
    .on('offers')
    .columns(['status', 'end_date', 'price_amount'])
    .where(sql.ref('status'), 'in', ['approved', 'resumed'])
    .execute();
  await db.schema.createIndex('offers_updated').on('offers').column('updated_at').execute();

  // Redemption locations, one row each, geocoded for radius search.
  await db.schema
    .createTable('offer_locations')
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('city', 'text')
    .addColumn('state_code', 'text')
    .addColumn('postal_code', 'text')
    .addColumn('country_code', 'text')
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addPrimaryKeyConstraint('offer_locations_pk', ['offer_id', 'position'])
    .execute();
  await db.schema.createIndex('offer_locations_geo').on('offer_locations').columns(['latitude', 'longitude']).execute();
  await db.schema.createIndex('offer_locations_place').on('offer_locations').columns(['country_code', 'state_code', 'city']).execute();
  await db.schema.createIndex('offer_locations_postal').on('offer_locations').column('postal_code').execute();

  await db.schema
    .createTable('offer_categories')
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id'))
    .addPrimaryKeyConstraint('offer_categories_pk', ['offer_id', 'category_id'])
    .execute();
  await db.schema.createIndex('offer_categories_category').on('offer_categories').column('category_id').execute();

  // The outbox of offer changes: callbacks deliver these; `sequence` orders them per offer.
  await db.schema
    .createTable('offer_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('offer_events_sequence', ['offer_id', 'sequence'])
    .execute();
  await db.schema.createIndex('offer_events_created').on('offer_events').column('created_at').execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id').onDelete('cascade'))
    // 'advertiser' (the submission client) or 'review_team' (operators; e.g. a rejection reason).
    .addColumn('author_role', 'text', (c) => c.notNull())
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('attachment_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('comments_offer').on('comments').columns(['offer_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['comments', 'offer_events', 'offer_categories', 'offer_locations', 'offers', 'attachments']) {
    await db.schema.dropTable(t).execute();
  }
}
