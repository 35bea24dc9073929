import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

const CATEGORIES: Array<[number, string, number | null]> = [
  [1, 'Food & Drink', null],
  [2, 'Restaurants', 1],
  [3, 'Cafés & Bakeries', 1],
  [4, 'Bars & Nightlife', 1],
  [5, 'Groceries', 1],
  [10, 'Health & Beauty', null],
  [11, 'Spas & Massage', 10],
  [12, 'Hair & Nails', 10],
  [13, 'Fitness', 10],
  [14, 'Dental & Medical', 10],
  [20, 'Things to Do', null],
  [21, 'Events & Tickets', 20],
  [22, 'Activities & Classes', 20],
  [23, 'Travel & Hotels', 20],
  [24, 'Kids & Family', 20],
  [30, 'Shopping', null],
  [31, 'Apparel & Accessories', 30],
  [32, 'Electronics', 30],
  [33, 'Home & Garden', 30],
  [34, 'Gifts & Flowers', 30],
  [40, 'Services', null],
  [41, 'Automotive', 40],
  [42, 'Home Services', 40],
  [43, 'Education', 40],
  [44, 'Pets', 40],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('interface', 'text', (c) => c.notNull().check(sql`interface in ('submission', 'distribution')`))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('sandbox', 'production')`))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('reservations_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'integer', (c) => c.references('categories.id'))
    .execute();
  await db
    .insertInto('categories')
    .values(CATEGORIES.map(([id, name, parent_id]) => ({ id, name, parent_id })))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('categories').execute();
  await db.schema.dropTable('api_clients').execute();
}
