import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * An advertiser's IANA time zone (docs/decisions/0077-local-day-and-money-format.md): the counter's
 * "today" follows the shop's local day. Existing advertisers keep UTC, the day the counter used
 * before; the API validates the name (domain/time-zones.ts), the CHECK only bounds its length.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table advertisers add column time_zone text not null default 'UTC' check (length(time_zone) between 1 and 64)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table advertisers drop column time_zone`.execute(db);
}
