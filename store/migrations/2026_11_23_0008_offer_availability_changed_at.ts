import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Stock moves no longer touch offers.updated_at (every sale made recently_updated noisy); the time
// an offer last sold out or came back in stock is kept apart, for recently_closed and
// recently_updated (docs/distribution-search.md, "Keeping a local copy of the catalogue").

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offers').addColumn('availability_changed_at', 'timestamptz').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offers').dropColumn('availability_changed_at').execute();
}
