import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The monthly statements (docs/statements.md "Monthly statements"): one row per client and month,
 * written when its three files (JSON, CSV, XML) are in the object store. The id is derived from
 * client and month, and (client_id, month) is unique, so a re-run of a month adds nothing.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('monthly_statements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('interface', 'text', (c) => c.notNull().check(sql`interface in ('submission', 'distribution')`))
    .addColumn('month', 'text', (c) => c.notNull().check(sql`month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`))
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('lines', 'integer', (c) => c.notNull())
    .addColumn('files', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('monthly_statements_client_month', ['client_id', 'month'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('monthly_statements').execute();
}
