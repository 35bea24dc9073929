import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Postal codes imported from GeoNames postal-code files (`admin postal-codes import`,
 * docs/distribution-search.md): the search centres of countries the packaged `zipcodes` data does
 * not cover. One row per code and place (a GeoNames code may serve several places); a re-import
 * upserts on that key.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('postal_codes')
    .addColumn('country_code', 'text', (c) => c.notNull().check(sql`country_code ~ '^[A-Z]{2}$'`))
    .addColumn('postal_code', 'text', (c) => c.notNull().check(sql`length(postal_code) between 1 and 20`))
    .addColumn('place_name', 'text', (c) => c.notNull())
    .addColumn('admin1_name', 'text')
    .addColumn('admin1_code', 'text')
    .addColumn('latitude', 'float8', (c) => c.notNull().check(sql`latitude between -90 and 90`))
    .addColumn('longitude', 'float8', (c) => c.notNull().check(sql`longitude between -180 and 180`))
    .addColumn('accuracy', 'smallint')
    .addColumn('imported_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('postal_codes_pkey', ['country_code', 'postal_code', 'place_name'])
    .execute();
  // A code looked up without its country (the search's postal_code alone).
  await db.schema.createIndex('postal_codes_code').on('postal_codes').column('postal_code').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('postal_codes').execute();
}
