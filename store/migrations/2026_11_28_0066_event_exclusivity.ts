import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Feed visibility in time (docs/decisions/0074-feed-visibility-in-time.md): each offer event keeps
 * the offer's exclusivity as it was when the event was written, so a distributor's feed and callbacks
 * judge the event by who could see the offer then, not by who can now.
 *
 * - offer_events.exclusivity: the offer document's `exclusivity` at the event's insert ('{}' when the
 *   offer had none: open to all), copied by a BEFORE INSERT trigger from the offers row in the same
 *   transaction, so no writer of events can forget it. Null on events written before this
 *   migration (and on events about no offer): those are judged by the offer as it is now.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offer_events').addColumn('exclusivity', 'jsonb').execute();
  await sql`create function offer_events_keep_exclusivity() returns trigger language plpgsql as $$
    begin
      select coalesce(o.document->'exclusivity', '{}'::jsonb) into new.exclusivity from offers o where o.id = new.offer_id;
      return new;
    end $$`.execute(db);
  await sql`create trigger offer_events_keep_exclusivity before insert on offer_events
    for each row when (new.offer_id is not null) execute function offer_events_keep_exclusivity()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger offer_events_keep_exclusivity on offer_events`.execute(db);
  await sql`drop function offer_events_keep_exclusivity()`.execute(db);
  await db.schema.alterTable('offer_events').dropColumn('exclusivity').execute();
}
