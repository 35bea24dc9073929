import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// The sandbox's shared demonstration key (spec 5.4): a flag on its client (read-only access). The
// secret the key is derived from is a deployment setting (deployment_settings, migration 0006).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_clients')
    .addColumn('demo', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_clients').dropColumn('demo').execute();
}
