import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  // Whoever waits for an offer's status to change (an operator's decision, sent as a signal and
  // written by the review workflow) is woken on commit instead of polling: NOTIFY is delivered when
  // (and only if) the writing transaction commits. A row trigger keeps every writer of the status
  // unaware of it; the payload is the offer's id.
  await sql`create function notify_offer_status() returns trigger language plpgsql as $$
    begin
      perform pg_notify('offer_status', new.id);
      return null;
    end $$`.execute(db);
  await sql`create trigger offers_status_notify after update of status on offers
    for each row when (old.status is distinct from new.status) execute function notify_offer_status()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger offers_status_notify on offers`.execute(db);
  await sql`drop function notify_offer_status()`.execute(db);
}
