import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Keys roll without downtime (docs/decisions/0073-api-key-rolling.md): a client's current key stays
 * on its api_clients row; a key rolled away moves to rolled_api_keys, where it keeps working until
 * its expires_at, and is then refused as expired (kept a while longer so the refusal can say so).
 *
 * - api_clients.key_created_at: when the current key was issued (the client's creation, for keys
 *   issued before this migration); key_last_used_at: its last use, to the minute.
 * - rolled_api_keys: one row per key rolled away, by its SHA-256; deleted with its client's revocation
 *   check (a revoked client's rolled keys are refused with it) and by the hourly pruning once long expired.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_clients')
    .addColumn('key_created_at', 'timestamptz')
    .addColumn('key_last_used_at', 'timestamptz')
    .execute();
  await sql`update api_clients set key_created_at = created_at`.execute(db);
  await sql`alter table api_clients alter column key_created_at set not null, alter column key_created_at set default now()`.execute(db);
  await db.schema
    .createTable('rolled_api_keys')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('rolled_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('rolled_api_keys_by_client').on('rolled_api_keys').columns(['client_id', 'rolled_at']).execute();
  await db.schema.createIndex('rolled_api_keys_by_expiry').on('rolled_api_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rolled_api_keys').execute();
  await db.schema.alterTable('api_clients').dropColumn('key_created_at').dropColumn('key_last_used_at').execute();
}
