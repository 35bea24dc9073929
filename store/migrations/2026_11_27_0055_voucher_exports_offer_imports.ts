import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Bulk work (issue 36 items 3 and 4; docs/bulk-offers-and-exports.md).
 *
 * voucher_exports: one CSV of an offer's vouchers, written by its workflow to the object store in
 * parts; `rows` grows as each part is uploaded; `signing_key` signs its download links (random per
 * export, so a link names one export and nothing else).
 *
 * offer_imports and offer_import_lines: an NDJSON file of offers. The API validates every line as
 * POST /offers does and keeps one row per line: the validated offer (`offer`, to create) or the
 * error body (`errors`). The workflow creates the offers, recording each line's `offer_id` once:
 * (import, line) is the key that makes a retried step create nothing twice.
 *
 * The vouchers' keyset indexes: an export pages by (offer_id, id), a distribution client's own
 * by (client_id, offer_id, id); never by OFFSET.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table voucher_exports (
    id text primary key,
    client_id text not null,
    offer_id text not null references offers(id),
    interface text not null check (interface in ('submission', 'distribution')),
    status text not null check (status in ('queued', 'running', 'completed', 'failed')),
    rows integer not null default 0,
    object_key text not null,
    signing_key text not null,
    error text,
    created_at timestamptz not null default now(),
    finished_at timestamptz
  )`.execute(db);
  await sql`create index voucher_exports_client on voucher_exports (client_id, created_at)`.execute(db);

  await sql`create table offer_imports (
    id text primary key,
    client_id text not null,
    status text not null check (status in ('queued', 'running', 'completed', 'failed')),
    rows_total integer not null,
    rows_created integer not null default 0,
    rows_rejected integer not null default 0,
    created_at timestamptz not null default now(),
    finished_at timestamptz
  )`.execute(db);
  await sql`create index offer_imports_client on offer_imports (client_id, created_at)`.execute(db);
  await sql`create table offer_import_lines (
    import_id text not null references offer_imports(id) on delete cascade,
    line integer not null,
    offer jsonb,
    offer_id text,
    errors jsonb,
    primary key (import_id, line),
    check (offer is not null or errors is not null)
  )`.execute(db);

  await sql`create index vouchers_offer_keyset on vouchers (offer_id, id)`.execute(db);
  await sql`create index vouchers_client_offer_keyset on vouchers (client_id, offer_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index vouchers_client_offer_keyset`.execute(db);
  await sql`drop index vouchers_offer_keyset`.execute(db);
  await db.schema.dropTable('offer_import_lines').execute();
  await db.schema.dropTable('offer_imports').execute();
  await db.schema.dropTable('voucher_exports').execute();
}
