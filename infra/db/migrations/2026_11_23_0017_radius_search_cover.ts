import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * Radius searches read the redemption locations inside the search box from the point index alone:
 * the index carries the offer id and the coordinates (for the exact distance), so a search no longer
 * visits one heap page per location in the box (docs/distribution-search.md, "performance").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index offer_locations_point_cover on offer_locations using gist (point(longitude, latitude))
      include (offer_id, latitude, longitude)
      where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index offer_locations_point on offer_locations using gist (point(longitude, latitude))
      where latitude is not null and longitude is not null
  `.execute(db);
  await sql`drop index offer_locations_point_cover`.execute(db);
}
