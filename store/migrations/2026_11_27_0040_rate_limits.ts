import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The rate limit's counts, shared by every API process (store/rate-limits.ts). The columns, in this
 * order, are the ones rate-limiter-flexible's Postgres store reads and writes (it inserts by
 * position): the limited key, the hits in its current window, and when that window ends (ms since
 * the epoch). Created here rather than by the library, so that the schema has one history.
 *
 * Unlogged: every request writes a row, and a count lost with a crash only restarts a window, so
 * the counts skip the write-ahead log. No index on `expire`: the cleanup (store/rate-limits.ts) scans the table
 * (a few thousand live rows) every five minutes, while an index would cost every request's update.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unlogged table rate_limits (
    key text primary key,
    points integer not null default 0,
    expire bigint
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
