import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Oldest published first in index order (issue 24, deep paging; docs/distribution-search.md
 * "Paging by cursor"): the first copy of the catalogue pages through `sort_by=published_at+asc`.
 * offers_visible_published (migration 0037) is newest first with ties by id ascending; read
 * backwards it gives ties by id descending and empty keys first, so oldest first sorted every
 * offer on sale for each page, however shallow. This index is that
 * order itself, covering the filters like 0037's, so a page after a cursor reads one page of it.
 */

const SELLABLE = sql.raw(`status in ('approved', 'resumed')`);
/** The offer columns a search filters on, as migration 0037's sort indexes carry them. */
const OFFER_FILTERS =
  'type, start_date, end_date, quantity_in_stock, closed_at, vouchers_expire_on, exclusive_until, exclusive_channels, category_ids, nationwide_countries';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index offers_visible_published_asc on offers (published_at asc nulls last, id)
    include (${sql.raw(OFFER_FILTERS)}) where ${SELLABLE}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index offers_visible_published_asc`.execute(db);
}
