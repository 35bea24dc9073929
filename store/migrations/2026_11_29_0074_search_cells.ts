import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * A keyword search with a centre (issue 47, decision 0081): each search document lists the grid
 * cells of its offer's placed redemption locations, one per size (0.25°, 1° and 4°), under a GIN
 * index, so that Postgres intersects a word's matches with the circle's cells on the two indexes
 * before it reads a document (domain/search-geometry.ts circleCells asks for the cells; `search_cells`
 * here computes a location's, by the same formula).
 *
 * Kept by statement triggers on offer_locations (an offer's locations are deleted and inserted in
 * its write: store/offer-search-rows.ts): the documents of the offers whose locations changed are
 * given their cells again, once per statement.
 */

export async function up(db: Kysely<unknown>): Promise<void> {
  // A location's cells: row from the South Pole, column from 180° W, as domain/search-geometry.ts.
  await sql`create function search_cells(latitude float8, longitude float8) returns int[] language sql immutable parallel safe as $$
    select array_agg(level * 100000000 + least(greatest(floor((latitude + 90) / size), 0), 180 / size - 1)::int * 10000
      + (floor((longitude + 180) / size)::int % (360 / size)::int) order by level)
    from (values (0, 0.25::float8), (1, 1::float8), (2, 4::float8)) s(level, size)
  $$`.execute(db);
  await sql`create function offer_search_cells(offer text) returns int[] language sql stable as $$
    select coalesce(array_agg(distinct c order by c), '{}') from offer_locations l, unnest(search_cells(l.latitude, l.longitude)) c
    where l.offer_id = offer and l.latitude is not null and l.longitude is not null
  $$`.execute(db);
  await sql`alter table offer_search_documents add column cells int[] not null default '{}'`.execute(db);

  await sql`create function offer_search_cells_write() returns trigger language plpgsql as $$
    begin
      update offer_search_documents d set cells = offer_search_cells(d.offer_id)
        where d.offer_id in (select distinct offer_id from changed);
      return null;
    end $$`.execute(db);
  await sql`create trigger offer_locations_cells_insert after insert on offer_locations
    referencing new table as changed for each statement execute function offer_search_cells_write()`.execute(db);
  await sql`create trigger offer_locations_cells_update after update on offer_locations
    referencing new table as changed for each statement execute function offer_search_cells_write()`.execute(db);
  await sql`create trigger offer_locations_cells_delete after delete on offer_locations
    referencing old table as changed for each statement execute function offer_search_cells_write()`.execute(db);

  // Backfill in one statement, then the index (built once rather than kept row by row).
  await sql`update offer_search_documents d set cells = c.cells
    from (select l.offer_id, array_agg(distinct cell order by cell) as cells
      from offer_locations l, unnest(search_cells(l.latitude, l.longitude)) cell
      where l.latitude is not null and l.longitude is not null group by l.offer_id) c
    where c.offer_id = d.offer_id`.execute(db);
  await sql`create index offer_search_documents_cells on offer_search_documents using gin (cells)`.execute(db);
  await sql`analyze offer_search_documents`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'update', 'delete'])
    await sql`drop trigger ${sql.raw(`offer_locations_cells_${event}`)} on offer_locations`.execute(db);
  await sql`drop function offer_search_cells_write()`.execute(db);
  await sql`alter table offer_search_documents drop column cells`.execute(db);
  await sql`drop function offer_search_cells(text)`.execute(db);
  await sql`drop function search_cells(float8, float8)`.execute(db);
}
