import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Indexes and sort columns for the distribution offer search (docs/distribution-search.md).
 * Radius search: a GiST index on each redemption location's point answers the bounding-box
 * prefilter without scanning a latitude band; the exact great-circle distance is computed on
 * the few rows inside the box. Sort keys that live in the offer document are generated columns,
 * so the writers (activities/offer-records.ts) need not know about them.
 */

const SELLABLE = sql`status in ('approved', 'resumed')`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table offers
      add column value_amount bigint generated always as ((document #>> '{value,amount}')::bigint) stored,
      add column discount_percent numeric generated always as (
        case
          when document #>> '{discount,type}' = 'percentage' then (document #>> '{discount,percentage}')::numeric
          when document #>> '{discount,type}' = 'fixed_amount' and (document #>> '{value,amount}')::numeric > 0
            then round((document #>> '{discount,amount,amount}')::numeric * 100 / (document #>> '{value,amount}')::numeric, 2)
          when (document #>> '{value,amount}')::numeric > 0 and (document #>> '{price,amount}') is not null
            then round(((document #>> '{value,amount}')::numeric - (document #>> '{price,amount}')::numeric) * 100 / (document #>> '{value,amount}')::numeric, 2)
        end
      ) stored
  `.execute(db);

  await sql`
    create index offer_locations_point on offer_locations using gist (point(longitude, latitude))
    where latitude is not null and longitude is not null
  `.execute(db);
  await db.schema.createIndex('offer_locations_city').on('offer_locations').columns(['city', 'state_code']).execute();
  await db.schema.createIndex('offer_locations_state').on('offer_locations').columns(['state_code', 'city']).execute();

  // The default order of a search (newest first) and the benchmark's price order, over visible offers only.
  await sql`create index offers_visible_published on offers (published_at desc nulls last, id) where ${SELLABLE}`.execute(db);
  await sql`create index offers_visible_price on offers (price_amount, id) where ${SELLABLE}`.execute(db);
  // Visibility and sort keys of on-sale offers without reading their (wide) rows: a radius search
  // checks each nearby offer here (index-only), and counting all visible offers stays cheap.
  await sql`
    create index offers_visible_cover on offers (id)
    include (type, start_date, end_date, quantity_in_stock, closed_at, price_amount, value_amount, discount_percent, published_at, updated_at)
    where ${SELLABLE}
  `.execute(db);
  // recently_closed: offers that ended, found by their end time without scanning live ones.
  await sql`create index offers_closed on offers (closed_at) where closed_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'offers_closed',
    'offers_visible_cover',
    'offers_visible_price',
    'offers_visible_published',
    'offer_locations_state',
    'offer_locations_city',
    'offer_locations_point',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
  await sql`alter table offers drop column discount_percent, drop column value_amount`.execute(db);
}
