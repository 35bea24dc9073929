import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Bulk code imports and generation (docs/bulk-vouchers.md): the import, its committed batches (the
// idempotency of each batch's transaction) and its rejected rows (the errors CSV).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('voucher_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id'))
    .addColumn('advertiser_id', 'text', (c) => c.notNull().references('advertisers.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('file', 'generate')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'completed', 'failed')`))
    .addColumn('rows_total', 'bigint', (c) => c.notNull())
    .addColumn('rows_imported', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_rejected', 'bigint', (c) => c.notNull().defaultTo(0))
    // A file: its object key, where its data starts (after the header) and which column is which.
    .addColumn('source_key', 'text')
    .addColumn('data_start_byte', 'bigint')
    .addColumn('columns', 'jsonb')
    // Generation: the pattern the codes are made from.
    .addColumn('pattern', 'jsonb')
    .addColumn('failure_message', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('voucher_imports_offer').on('voucher_imports').columns(['offer_id', 'created_at']).execute();
  await sql`create index voucher_imports_running on voucher_imports (created_at) where status in ('queued', 'running')`.execute(db);

  // One row per committed batch, written in the batch's own transaction: a retried batch finds it.
  await db.schema
    .createTable('voucher_import_batches')
    .addColumn('import_id', 'text', (c) => c.notNull().references('voucher_imports.id'))
    .addColumn('batch', 'integer', (c) => c.notNull())
    // Where the next batch starts: the byte after this batch's last line, and the next row number.
    .addColumn('end_byte', 'bigint', (c) => c.notNull())
    .addColumn('next_row', 'bigint', (c) => c.notNull())
    .addColumn('imported', 'integer', (c) => c.notNull())
    .addColumn('rejected', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('voucher_import_batches_pk', ['import_id', 'batch'])
    .execute();

  await db.schema
    .createTable('voucher_import_rejections')
    .addColumn('import_id', 'text', (c) => c.notNull().references('voucher_imports.id'))
    .addColumn('row', 'bigint', (c) => c.notNull())
    .addColumn('redemption_code', 'text', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('voucher_import_rejections_pk', ['import_id', 'row'])
    .execute();

  // Which import brought a code (null: the offer's own request): tells "repeated in the file" from
  // "already the advertiser's" when the unique (advertiser, code) index refuses a row.
  await db.schema.alterTable('supplied_vouchers').addColumn('import_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('supplied_vouchers').dropColumn('import_id').execute();
  await db.schema.dropTable('voucher_import_rejections').execute();
  await db.schema.dropTable('voucher_import_batches').execute();
  await db.schema.dropTable('voucher_imports').execute();
}
