import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

// orders.workflow_id held the order's key (domain/orders.ts `orderKey`) under the name of the
// per-order workflow whose id it was until issue 32; that workflow no longer exists (issue 44).
// A rename keeps the values and the unique constraint: order ids still derive from the same key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders rename column workflow_id to order_key`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders rename column order_key to workflow_id`.execute(db);
}
