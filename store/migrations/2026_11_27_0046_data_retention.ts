import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Data that stops growing (docs/data-retention.md; docs/decisions/0062-data-retention.md).
 *
 * `feed_floor`: one row, the highest change-feed position the pruner has deleted up to (every event
 * at or below it is gone or going). A cursor below it is answered 410, and numbering continues above
 * it even when every event is pruned, so no position is ever handed out twice.
 *
 * Two indexes for the pruner and for /metrics' oldest-row gauges: the finished deliveries are pruned
 * oldest first by `created_at`, and min(created_at) / min(started_at) are read on every scrape.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table feed_floor (
    id smallint primary key default 1 check (id = 1),
    position bigint not null default 0,
    moved_at timestamptz
  )`.execute(db);
  await sql`insert into feed_floor (id) values (1)`.execute(db);
  await sql`create index callback_deliveries_created on callback_deliveries (created_at)`.execute(db);
  await sql`create index callback_attempts_started on callback_attempts (started_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index callback_attempts_started`.execute(db);
  await sql`drop index callback_deliveries_created`.execute(db);
  await db.schema.dropTable('feed_floor').execute();
}
