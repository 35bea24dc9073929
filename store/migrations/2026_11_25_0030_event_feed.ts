import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The change feed (GET /events, docs/change-feed.md) pages the outbox by `feed_position`: a number
 * given to each event after its transaction committed, by one writer at a time
 * (store/offer-events.ts `numberCommittedEvents`), so positions grow in commit order and a cursor
 * never passes an event that commits later. `fed_at` is when the event got its position (clock
 * time of that writer, so it grows with the position): a cursor's age is measured against it.
 * Events written before this migration are numbered by the first feed read.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offer_events').addColumn('feed_position', 'bigint').addColumn('fed_at', 'timestamptz').execute();
  await db.schema.createIndex('offer_events_feed_position').unique().on('offer_events').column('feed_position').execute();
  // What the numbering reads on every feed request: only the events still without a position.
  await sql`create index offer_events_unnumbered on offer_events (offer_id, sequence) where feed_position is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('offer_events_unnumbered').execute();
  await db.schema.dropIndex('offer_events_feed_position').execute();
  await db.schema.alterTable('offer_events').dropColumn('feed_position').dropColumn('fed_at').execute();
}
