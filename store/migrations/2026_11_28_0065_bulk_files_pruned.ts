import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Stored import and export files are deleted after BULK_FILES_RETENTION_DAYS (issue 43 item 8,
 * docs/data-retention.md): `files_pruned_at` records that a finished import's uploaded file or a
 * finished export's CSV was deleted from the object store, so the hourly pruning takes each once and
 * the API answers a pruned export's download 410 `gone`. The partial indexes hold only what is still
 * to prune, oldest first.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('voucher_imports').addColumn('files_pruned_at', 'timestamptz').execute();
  await db.schema.alterTable('voucher_exports').addColumn('files_pruned_at', 'timestamptz').execute();
  await sql`create index voucher_imports_files_due on voucher_imports (finished_at)
    where files_pruned_at is null and source_key is not null and finished_at is not null`.execute(db);
  await sql`create index voucher_exports_files_due on voucher_exports (finished_at)
    where files_pruned_at is null and finished_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index voucher_exports_files_due`.execute(db);
  await sql`drop index voucher_imports_files_due`.execute(db);
  await db.schema.alterTable('voucher_exports').dropColumn('files_pruned_at').execute();
  await db.schema.alterTable('voucher_imports').dropColumn('files_pruned_at').execute();
}
