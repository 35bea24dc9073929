import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Developer sign-up (spec 5.3, docs/decisions/0031-developer-sign-up.md): who got a sandbox key pair by themselves. One
 * row per email address (stored lower-case, so the unique index is case-blind), naming the two
 * API clients it created and the client address it came from (for abuse reports). Keys stay in
 * api_clients, hashed, like every key.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('developer_signups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`email = lower(email) and length(email) <= 254`),
    )
    .addColumn('name', 'text')
    .addColumn('submission_client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('distribution_client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('developer_signups').execute();
}
