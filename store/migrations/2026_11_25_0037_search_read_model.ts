import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The search rows as a read model (issue 24, docs/distribution-search-design.md "The search rows carry
 * their offer's filters"): each redemption location (offer_locations) and category
 * (offer_categories) row carries what the search filters its offer on, so a count walks one index
 * range (the place, the circle or the category leading) and reads nothing else; before, each match
 * cost a probe of its offer.
 *
 * - `on_sale`: the part of the visibility rule that does not depend on the day (sellable status,
 *   not closed, in stock; null stock is unlimited). The indexes below hold only rows on sale.
 * - The day-dependent inputs (start and end dates, the vouchers' fixed expiry, exclusivity) and
 *   the other filters (type, category ids), as the offer row has them (migration 0036).
 * - Two sort keys (price, published_at): a radius search sorted by them reads its circle's
 *   locations in that order, or sorts a small circle without visiting its offers.
 *
 * Kept in step by triggers, inside the offer's own write: a new search row copies its offer's
 * values (writeSearchRows inserts them after the offer row), and a change of any of them on the
 * offer row is copied to its search rows. The trigger's WHEN compares the inputs themselves, so an
 * order that takes stock touches the search rows only when the offer sells out or comes back in
 * stock, not on every order.
 */

/** The search rows' copies of their offer's values, and (offerValues) those values on an offer row `o`. */
const COPIED = [
  'on_sale',
  'start_date',
  'end_date',
  'type',
  'vouchers_expire_on',
  'exclusive_until',
  'exclusive_channels',
  'category_ids',
  'price_amount',
  'published_at',
];
const offerValues = (o: string) =>
  [
    `(${o}.status in ('approved', 'resumed') and ${o}.closed_at is null and coalesce(${o}.quantity_in_stock > 0, true))`,
    ...COPIED.slice(1).map((c) => `${o}.${c}`),
  ].join(', ');

/** What a count of matches reads besides the key: the offer, and each filter's input. */
const CARRIED = 'offer_id, type, start_date, end_date, vouchers_expire_on, exclusive_until, exclusive_channels, category_ids';

const SELLABLE = sql.raw(`status in ('approved', 'resumed')`);
/** The offer columns a search filters on (migration 0036 covers them in offers_visible_cover). */
const OFFER_FILTERS =
  'type, start_date, end_date, quantity_in_stock, closed_at, vouchers_expire_on, exclusive_until, exclusive_channels, category_ids, nationwide_countries';
/** The sort orders of migration 0004, made covering. */
const SORT_INDEXES = [
  ['offers_visible_published', 'published_at desc nulls last, id'],
  ['offers_visible_price', 'price_amount, id'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['offer_locations', 'offer_categories']) {
    await sql`
      alter table ${sql.table(table)}
        add column on_sale boolean not null default false,
        add column start_date date,
        add column end_date date,
        add column type text,
        add column vouchers_expire_on text,
        add column exclusive_until text,
        add column exclusive_channels jsonb,
        add column category_ids int[],
        add column price_amount bigint,
        add column published_at timestamptz
    `.execute(db);
  }
  // The backfill changes no place, so the nationwide flag's trigger (migration 0011) has nothing to
  // do; it would recompute every offer's flag (most of the backfill's time at a million offers).
  await sql`alter table offer_locations disable trigger offer_locations_nationwide_update`.execute(db);
  for (const table of ['offer_locations', 'offer_categories'])
    await sql`
      update ${sql.table(table)} r set (${sql.raw(COPIED.join(', '))}) = (select ${sql.raw(offerValues('o'))} from offers o where o.id = r.offer_id)
    `.execute(db);
  await sql`alter table offer_locations enable trigger offer_locations_nationwide_update`.execute(db);

  // A new search row starts with its offer's values (the offer row is written first, in the same transaction).
  await sql`create function search_row_copy_offer() returns trigger language plpgsql as $$
    begin
      select ${sql.raw(offerValues('o'))} into ${sql.raw(COPIED.map((c) => `new.${c}`).join(', '))}
      from offers o where o.id = new.offer_id;
      return new;
    end $$`.execute(db);
  for (const table of ['offer_locations', 'offer_categories'])
    await sql`create trigger ${sql.raw(`${table}_copy_offer`)} before insert on ${sql.table(table)}
      for each row execute function search_row_copy_offer()`.execute(db);

  // A change of the offer's values reaches its search rows.
  await sql`create function offer_copy_to_search_rows() returns trigger language plpgsql as $$
    begin
      update offer_locations r set (${sql.raw(COPIED.join(', '))}) = (select ${sql.raw(offerValues('new'))}) where r.offer_id = new.id;
      update offer_categories r set (${sql.raw(COPIED.join(', '))}) = (select ${sql.raw(offerValues('new'))}) where r.offer_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger offers_copy_to_search_rows after update on offers for each row
    when ((${sql.raw(offerValues('old'))}) is distinct from (${sql.raw(offerValues('new'))}))
    execute function offer_copy_to_search_rows()`.execute(db);

  // The counts' indexes: only rows on sale, each carrying every filter's input (index-only scans).
  await sql`create index offer_categories_on_sale on offer_categories (category_id) include (${sql.raw(CARRIED)}) where on_sale`.execute(
    db,
  );
  await sql`create index offer_locations_state_on_sale on offer_locations (state_code, city)
    include (position, country_code, ${sql.raw(CARRIED)}) where on_sale`.execute(db);
  await sql`create index offer_locations_city_on_sale on offer_locations (city, state_code)
    include (position, country_code, ${sql.raw(CARRIED)}) where on_sale`.execute(db);
  await sql`create index offer_locations_point_on_sale on offer_locations using gist (point(longitude, latitude))
    include (position, latitude, longitude, country_code, state_code, city, ${sql.raw(CARRIED)})
    where on_sale and latitude is not null and longitude is not null`.execute(db);
  await sql`create index offer_locations_earth_on_sale on offer_locations using gist (ll_to_earth(latitude, longitude))
    include (position, latitude, longitude, country_code, state_code, city, ${sql.raw(CARRIED)})
    where on_sale and latitude is not null and longitude is not null`.execute(db);
  // A radius search sorted by price or newest whose circle holds more than the bound's matches:
  // its locations in that order, the circle a filter on the carried point, up to the page.
  for (const [name, key] of [
    ['offer_locations_price_on_sale', 'price_amount, offer_id'],
    ['offer_locations_published_on_sale', 'published_at desc nulls last, offer_id'],
  ])
    await sql`create index ${sql.raw(name)} on offer_locations (${sql.raw(key)})
      include (position, latitude, longitude, country_code, state_code, city, ${sql.raw(CARRIED)})
      where on_sale and latitude is not null and longitude is not null`.execute(db);

  // The offers' own sort orders carry the visibility inputs too, so a page read in index order
  // (newest, price) filters without visiting offer rows; and the nationwide offers (a few percent)
  // have one of their own, newest first, for a search by country alone (count and page).
  for (const [name, key] of SORT_INDEXES) {
    await sql`drop index ${sql.raw(name)}`.execute(db);
    await sql`create index ${sql.raw(name)} on offers (${sql.raw(key)}) include (${sql.raw(OFFER_FILTERS)}) where ${SELLABLE}`.execute(db);
  }
  await sql`create index offers_nationwide_cover on offers (published_at desc nulls last, id) include (${sql.raw(OFFER_FILTERS)})
    where ${SELLABLE} and cardinality(nationwide_countries) > 0`.execute(db);
  // How few offers are nationwide: without it the planner takes that index for a third of the
  // offers, and counting by country became a parallel scan (with worker start-up), not an index range.
  await sql`create statistics offers_nationwide_cardinality on (cardinality(nationwide_countries)) from offers`.execute(db);
  await sql`analyze offers`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop statistics offers_nationwide_cardinality`.execute(db);
  await sql`drop index offers_nationwide_cover`.execute(db);
  for (const [name, key] of SORT_INDEXES) {
    await sql`drop index ${sql.raw(name)}`.execute(db);
    await sql`create index ${sql.raw(name)} on offers (${sql.raw(key)}) where ${SELLABLE}`.execute(db);
  }
  for (const index of [
    'offer_categories_on_sale',
    'offer_locations_state_on_sale',
    'offer_locations_city_on_sale',
    'offer_locations_point_on_sale',
    'offer_locations_earth_on_sale',
    'offer_locations_price_on_sale',
    'offer_locations_published_on_sale',
  ])
    await sql`drop index ${sql.raw(index)}`.execute(db);
  await sql`drop trigger offers_copy_to_search_rows on offers`.execute(db);
  await sql`drop function offer_copy_to_search_rows()`.execute(db);
  for (const table of ['offer_locations', 'offer_categories']) {
    await sql`drop trigger ${sql.raw(`${table}_copy_offer`)} on ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(table)} ${sql.raw(COPIED.map((c) => `drop column ${c}`).join(', '))}`.execute(db);
  }
  await sql`drop function search_row_copy_offer()`.execute(db);
}
