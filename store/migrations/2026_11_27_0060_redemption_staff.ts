import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The merchant's counter (docs/merchant-counter.md): redemption staff an advertiser creates, their
 * sessions on the /merchant page, and the staff member each redemption records.
 *
 * - redemption_staff: one row per staff credential of one advertiser of one submission client. The
 *   one-time sign-in code is stored as its SHA-256 only (sign_in_hash, unique: a sign-in finds the
 *   row by it), with its expiry; signing in clears it. Revoking sets revoked_at.
 * - staff_sessions: a signed-in browser; only the SHA-256 of its cookie is stored. Expired rows are
 *   deleted when the same staff member signs in again, and with their staff on revoke.
 * - voucher_redemptions.staff_id / staff_name: who redeemed at the counter (null through the API);
 *   the name as it was then.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('redemption_staff')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('advertiser_id', 'text', (c) => c.notNull().references('advertisers.id'))
    .addColumn('name', 'text', (c) => c.notNull().check(sql`length(name) between 1 and 100`))
    .addColumn('postal_codes', sql`text[]`)
    .addColumn('sign_in_hash', 'text', (c) => c.unique())
    .addColumn('sign_in_expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('redemption_staff_by_client').on('redemption_staff').columns(['client_id', 'created_at']).execute();
  await db.schema
    .createTable('staff_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('redemption_staff.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('staff_sessions_by_staff').on('staff_sessions').column('staff_id').execute();
  await db.schema
    .alterTable('voucher_redemptions')
    .addColumn('staff_id', 'text', (c) => c.references('redemption_staff.id'))
    .addColumn('staff_name', 'text')
    .execute();
  await sql`create index voucher_redemptions_by_staff on voucher_redemptions (staff_id, redeemed_at) where staff_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('voucher_redemptions').dropColumn('staff_name').dropColumn('staff_id').execute();
  await db.schema.dropTable('staff_sessions').execute();
  await db.schema.dropTable('redemption_staff').execute();
}
