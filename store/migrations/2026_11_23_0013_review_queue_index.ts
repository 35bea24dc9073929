import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The review queue (offers pending, oldest first) as a small partial index, so /metrics can read
 * the queue's length and oldest age on every scrape without scanning every offer ever submitted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('offers_review_queue').on('offers').column('submitted_at').where(sql.ref('status'), '=', 'pending').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('offers_review_queue').execute();
}
