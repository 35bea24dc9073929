import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

const SELLABLE = sql`status in ('approved', 'resumed')`;

/**
 * Searches that stay flat as the catalogue grows (docs/distribution-search-design.md). Radius
 * searches read the redemption locations inside the search box from the point index alone: it
 * carries the offer id and the coordinates (for the exact distance), so a search no longer visits
 * one heap page per location in the box.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index offer_locations_point_cover on offer_locations using gist (point(longitude, latitude))
      include (offer_id, latitude, longitude)
      where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point`.execute(db);
  // recently_updated / recently_closed find the offers that changed since a day without reading every
  // offer: each arm of their conditions has an index (updated_at, closed_at and end_date had one).
  await sql`create index offers_visible_availability on offers (availability_changed_at) where ${SELLABLE}`.execute(db);
  await sql`create index offers_visible_start on offers (start_date) where ${SELLABLE}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index offers_visible_start`.execute(db);
  await sql`drop index offers_visible_availability`.execute(db);
  await sql`
    create index offer_locations_point on offer_locations using gist (point(longitude, latitude))
      where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point_cover`.execute(db);
}
