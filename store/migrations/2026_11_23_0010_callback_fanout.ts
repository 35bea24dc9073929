import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  // Set when the dispatcher makes a delivery's first attempt itself (docs/callbacks.md, fan-out):
  // until then nobody else may attempt it or anything after it in its lane. A crashed dispatcher's
  // lease simply runs out.
  await db.schema.alterTable('callback_deliveries').addColumn('leased_until', 'timestamptz').execute();

  // Wake the dispatcher on commit instead of polling: NOTIFY is delivered when (and only if) the
  // writing transaction commits, and Postgres folds a transaction's notifications into one. A
  // statement trigger keeps writers unaware of callbacks, as before.
  await sql`create function notify_offer_events() returns trigger language plpgsql as $$
    begin
      perform pg_notify('offer_events', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger offer_events_notify after insert on offer_events
    for each statement execute function notify_offer_events()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger offer_events_notify on offer_events`.execute(db);
  await sql`drop function notify_offer_events()`.execute(db);
  await db.schema.alterTable('callback_deliveries').dropColumn('leased_until').execute();
}
