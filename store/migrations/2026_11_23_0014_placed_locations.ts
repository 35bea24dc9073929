import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Redemption locations may now carry their own coordinates (docs/distribution-search.md).
 * - Points wrongly given to other countries' postal codes (looked up as US ZIP codes) are removed.
 * - `offers.unplaced_locations`: the positions of the offer's locations a radius search cannot
 *   find, written with the search rows (store/offers.ts) and shown to the advertiser. Existing
 *   offers are filled from their search rows with the same rule.
 * - The nationwide rule: a location naming only its country is "anywhere in the country" only when
 *   it has no point; with coordinates it is one place. The function the triggers of migration 0011
 *   call is replaced in place, so those triggers keep working unchanged.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table offers add column unplaced_locations integer[] not null default '{}'`.execute(db);
  // Until now a postal code was looked up whatever its country, so a German 10115 got New York's
  // point. Only US and Canadian codes are in the data, and no location could give coordinates yet:
  // any other country's point came from that mistake.
  await sql`
    update offer_locations set latitude = null, longitude = null
    where latitude is not null and country_code is not null and country_code not in ('US', 'CA')
  `.execute(db);
  await sql`
    update offers o set unplaced_locations = u.positions
    from (
      select offer_id, array_agg(position order by position) as positions from offer_locations
      where latitude is null
        and not (country_code is not null and postal_code is null and city is null and state_code is null)
      group by offer_id
    ) u
    where u.offer_id = o.id
  `.execute(db);
  await replaceNationwideRule(db, sql`and l.latitude is null`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replaceNationwideRule(db, sql``);
  await sql`alter table offers drop column unplaced_locations`.execute(db);
}

async function replaceNationwideRule(db: Kysely<any>, pointless: ReturnType<typeof sql>): Promise<void> {
  await sql`create or replace function offer_nationwide_countries(offer text) returns text[] language sql stable as $$
    select case
      when not exists (select 1 from offer_locations l where l.offer_id = offer) then array['*']
      else coalesce((
        select array_agg(distinct l.country_code order by l.country_code) from offer_locations l
        where l.offer_id = offer and l.country_code is not null
          and l.postal_code is null and l.city is null and l.state_code is null ${pointless}
      ), '{}')
    end
  $$`.execute(db);
  await sql`update offers set nationwide_countries = offer_nationwide_countries(id)
    where nationwide_countries is distinct from offer_nationwide_countries(id)`.execute(db);
}
