import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Searches that read only what they return (issue 24, docs/distribution-search-design.md):
 *
 * - The rest of the visibility rule as columns: the vouchers' fixed expiry day and the offer's
 *   exclusivity, generated from the document; and its category ids (as offer_categories holds them). With them in the covering index, checking whether an
 *   offer is on sale (and open to this publisher) never reads the offer row, so counting up to the
 *   bound is an index-only walk.
 * - Locations as points on the Earth (cube/earthdistance: contrib extensions, trusted, no PostGIS),
 *   GiST-indexed: a search sorted by distance reads locations nearest first (`<->` KNN) and stops
 *   at its page. The chord distance in the cube orders like the great-circle distance.
 */

const SELLABLE = sql`status in ('approved', 'resumed')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists cube`.execute(db);
  await sql`create extension if not exists earthdistance`.execute(db);
  // The document's category ids, as writeSearchRows (store/offer-search-rows.ts) files them in offer_categories.
  await sql`create function offer_category_ids(document jsonb) returns int[] language sql immutable parallel safe as $$
    select coalesce(array(select distinct (c->>'id')::int from jsonb_array_elements(document->'advertiser'->'categories') c order by 1), '{}')
  $$`.execute(db);
  await sql`
    alter table offers
      add column vouchers_expire_on text generated always as (document #>> '{vouchers_expire,on}') stored,
      add column exclusive_until text generated always as (
        case when coalesce((document->'exclusivity'->>'exclusive')::boolean, false)
          then coalesce(document->'exclusivity'->>'until', '9999-12-31') end
      ) stored,
      add column exclusive_channels jsonb generated always as (
        case when coalesce((document->'exclusivity'->>'exclusive')::boolean, false)
          then coalesce(document->'exclusivity'->'channels', '[]'::jsonb) end
      ) stored,
      add column category_ids int[] generated always as (offer_category_ids(document)) stored
  `.execute(db);
  await sql`drop index offers_visible_cover`.execute(db);
  await sql`
    create index offers_visible_cover on offers (id)
    include (type, start_date, end_date, quantity_in_stock, closed_at, price_amount, value_amount, discount_percent, published_at,
      updated_at, vouchers_expire_on, exclusive_until, exclusive_channels, category_ids)
    where ${SELLABLE}
  `.execute(db);
  await sql`
    create index offer_locations_earth on offer_locations using gist (ll_to_earth(latitude, longitude))
    include (offer_id, position, latitude, longitude) where latitude is not null and longitude is not null
  `.execute(db);
  // The circle's locations from the index alone, with the position that tells an offer's nearest one.
  await sql`
    create index offer_locations_point_position on offer_locations using gist (point(longitude, latitude))
    include (offer_id, position, latitude, longitude) where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point_cover`.execute(db);
  // An offer's locations from the index alone: whether one is in the circle or the place, and which is nearest.
  await sql`
    create index offer_locations_offer_place on offer_locations (offer_id)
    include (position, latitude, longitude, country_code, state_code, city)
  `.execute(db);
  // A state or city search counts from its locations, index-only (offer id and position to count each offer once).
  await sql`create index offer_locations_state_cover on offer_locations (state_code, city) include (offer_id, position, country_code)`.execute(
    db,
  );
  await sql`create index offer_locations_city_cover on offer_locations (city, state_code) include (offer_id, position, country_code)`.execute(
    db,
  );
  await sql`drop index offer_locations_state`.execute(db);
  await sql`drop index offer_locations_city`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index offer_locations_city on offer_locations (city, state_code)`.execute(db);
  await sql`create index offer_locations_state on offer_locations (state_code, city)`.execute(db);
  await sql`drop index offer_locations_city_cover`.execute(db);
  await sql`drop index offer_locations_state_cover`.execute(db);
  await sql`drop index offer_locations_offer_place`.execute(db);
  await sql`
    create index offer_locations_point_cover on offer_locations using gist (point(longitude, latitude))
      include (offer_id, latitude, longitude) where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point_position`.execute(db);
  await sql`drop index offer_locations_earth`.execute(db);
  await sql`drop index offers_visible_cover`.execute(db);
  await sql`alter table offers drop column category_ids, drop column exclusive_channels, drop column exclusive_until, drop column vouchers_expire_on`.execute(
    db,
  );
  await sql`
    create index offers_visible_cover on offers (id)
    include (type, start_date, end_date, quantity_in_stock, closed_at, price_amount, value_amount, discount_percent, published_at, updated_at)
    where ${SELLABLE}
  `.execute(db);
  await sql`drop function offer_category_ids(jsonb)`.execute(db);
}
