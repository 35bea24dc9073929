import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The review console's operators added with `admin ops users add` (docs/ops-console.md): a name
 * and its scrypt hash (platform/passwords.ts), never the password. Operators configured in
 * OPS_USERS / OPS_USERNAME stay in configuration; this table holds the ones added at run time, so
 * the console opens without a restart.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('name', 'text', (c) => c.primaryKey().check(sql`length(name) between 1 and 64`))
    .addColumn('password_hash', 'text', (c) => c.notNull().check(sql`password_hash like 'scrypt:%'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operators').execute();
}
