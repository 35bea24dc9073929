import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The review SLA (decision 0078): one value for every review, set by an operator with
 * `admin offers review-sla` while the service runs. One row at most (the check on `one`); no row
 * means the default, 72 hours.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('review_sla')
    .addColumn('one', 'boolean', (c) =>
      c
        .primaryKey()
        .defaultTo(true)
        .check(sql`one`),
    )
    .addColumn('seconds', 'integer', (c) => c.notNull().check(sql`seconds > 0`))
    .addColumn('set_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_sla').execute();
}
