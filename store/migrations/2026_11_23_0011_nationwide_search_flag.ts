import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The nationwide search (`country_code` alone, docs/distribution-search.md) as a flag on the offer
 * row: `nationwide_countries` lists the countries the offer is redeemable anywhere in, or is
 * `{*}` when it has no redemption location (redeemable anywhere at all). The search then tests
 * the row itself (`&& array['*', C]`, GIN-indexed over sellable offers) instead of two passes over
 * every redemption location, so it no longer grows with the locations table. Statement triggers on
 * offer_locations keep it true, so writers and bulk loads need not know about it.
 */

const SELLABLE = sql`status in ('approved', 'resumed')`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table offers add column nationwide_countries text[] not null default '{*}'`.execute(db);
  await sql`create function offer_nationwide_countries(offer text) returns text[] language sql stable as $$
    select case
      when not exists (select 1 from offer_locations l where l.offer_id = offer) then array['*']
      else coalesce((
        select array_agg(distinct l.country_code order by l.country_code) from offer_locations l
        where l.offer_id = offer and l.country_code is not null
          and l.postal_code is null and l.city is null and l.state_code is null
      ), '{}')
    end
  $$`.execute(db);
  await sql`create function offer_locations_refresh_nationwide() returns trigger language plpgsql as $$
    begin
      update offers o set nationwide_countries = offer_nationwide_countries(o.id)
      where o.id in (select distinct offer_id from changed)
        and o.nationwide_countries is distinct from offer_nationwide_countries(o.id);
      return null;
    end $$`.execute(db);
  for (const [event, table] of [
    ['insert', 'new'],
    ['update', 'new'],
    ['delete', 'old'],
  ] as const) {
    await sql`create trigger ${sql.raw(`offer_locations_nationwide_${event}`)} after ${sql.raw(event)} on offer_locations
      referencing ${sql.raw(table)} table as changed for each statement execute function offer_locations_refresh_nationwide()`.execute(db);
  }
  await sql`update offers set nationwide_countries = offer_nationwide_countries(id)`.execute(db);
  await sql`create index offers_visible_nationwide on offers using gin (nationwide_countries) where ${SELLABLE}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('offers_visible_nationwide').execute();
  for (const event of ['insert', 'update', 'delete'])
    await sql`drop trigger ${sql.raw(`offer_locations_nationwide_${event}`)} on offer_locations`.execute(db);
  await sql`drop function offer_locations_refresh_nationwide()`.execute(db);
  await sql`drop function offer_nationwide_countries(text)`.execute(db);
  await sql`alter table offers drop column nationwide_countries`.execute(db);
}
