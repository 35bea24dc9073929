import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Sharded order intake (issue 23, ORDER_INTAKE=sharded): an order placed through an intake
 * workflow records the HTTP request that placed it. Placing finds an existing order by its id
 * (derived from client and order_number, as before): the same request id is that request's own
 * retry (answered with the order), another is a duplicate order_number (409). Null for orders
 * placed by the per-order workflow, whose retries are told apart by their workflow id instead.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('request_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('request_id').execute();
}
