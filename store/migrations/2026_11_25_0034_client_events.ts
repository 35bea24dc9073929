import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Events addressed to one client rather than about one offer (`statement.ready`,
 * docs/statements.md): they go through the same outbox, so the change feed and the callbacks carry
 * them with the same ids and in the same sequence as offer events. Such an event has no offer_id
 * and names its client; every event has exactly one of the two.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table offer_events
    alter column offer_id drop not null,
    add column client_id text references api_clients(id) on delete cascade,
    add constraint offer_events_subject check ((offer_id is null) <> (client_id is null))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from offer_events where offer_id is null`.execute(db);
  await sql`alter table offer_events drop constraint offer_events_subject, drop column client_id,
    alter column offer_id set not null`.execute(db);
}
