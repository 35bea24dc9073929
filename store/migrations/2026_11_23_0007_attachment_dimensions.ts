import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Pixel size of image attachments, read from their header at upload (publishers lay out offer
// images without downloading them first; docs/distribution-offers.md, "Offer images").

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attachments').addColumn('width', 'integer').addColumn('height', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attachments').dropColumn('width').dropColumn('height').execute();
}
