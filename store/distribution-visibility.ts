import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, OfferRow } from './database';
import type { Db } from './db';
import { SELLABLE } from '../domain/offer-lifecycle';
import { addDays, utcDay } from '../domain/dates';
import { recentSince, type Place, type SearchFilters } from '../domain/search-plan';
import type { KeywordQuery } from '../domain/keyword-search';
import { inPlace } from './distribution-locations';

/*
 * Which offers a publisher sees (docs/distribution-offers.md): visibility, exclusivity, the
 * nationwide rule and the catalogue sync's recently_* are defined here once, in SQL, on the offer
 * row `o` and on the search rows' copies of its values; and the one offer a publisher may read.
 */

/** The filters of a search on `o` (store/distribution-search.ts OfferSearch), with the day and the client it is judged for. */
export interface VisibilityFilters extends SearchFilters {
  /** The UTC day visibility is judged on, and the instant `recently_*` count back from. */
  today: string;
  now: Date;
  /** The distribution client searching: an offer exclusive to others is not found (domain/exclusivity.ts). */
  clientId: string;
}

export type Eb = ExpressionBuilder<Database & { o: Database['offers'] }, 'o'>;

/** The offer's fixed `vouchers_expire.on` (text `YYYY-MM-DD`), or null: a column generated from the document (migration 0031). */
const VOUCHERS_EXPIRE_ON = sql<string | null>`o.vouchers_expire_on`;

/**
 * A voucher bought on `today` would not be expired yet: `expiredAtPurchase` (domain/voucher-expiry.ts)
 * in SQL. Only a fixed `on` can be past; `YYYY-MM-DD` text compares as dates do. On the offer row
 * `o`, or a search row (`alias`) carrying its copy.
 */
function vouchersUnexpiredSql(today: string, alias = 'o') {
  return sql<SqlBool>`coalesce(${sql.ref(`${alias}.vouchers_expire_on`)} >= ${today}, true)`;
}

/** On sale now: sellable status, today within its dates, not closed, in stock (null stock = unlimited), vouchers not expired. */
function visible(eb: Eb, today: string): Expression<SqlBool> {
  return eb.and([
    eb('o.status', 'in', [...SELLABLE]),
    eb('o.start_date', '<=', today),
    eb('o.end_date', '>=', today),
    eb('o.closed_at', 'is', null),
    eb.or([eb('o.quantity_in_stock', 'is', null), eb('o.quantity_in_stock', '>', 0)]),
    vouchersUnexpiredSql(today),
  ]);
}

/**
 * `openTo` (domain/exclusivity.ts) in SQL: not exclusive on `today` (not exclusive, or its `until`
 * has begun), or exclusive to this client. Read from columns generated from the document
 * (migration 0031: `exclusive_until` is null unless exclusive, '9999-12-31' without an `until`),
 * which the covering index carries, so the check needs no offer row.
 */
function openToSql(clientId: string, today: string, alias = 'o'): Expression<SqlBool> {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<SqlBool>`(
    ${a('exclusive_until')} is null
    or ${a('exclusive_until')} <= ${today}
    or ${a('exclusive_channels')} @> jsonb_build_array(${clientId}::text)
  )`;
}

/**
 * Every filter but the place, read from a search row `alias` (offer_locations or offer_categories)
 * instead of its offer: the copies of the offer's values it carries (migration 0037; `on_sale` is
 * `visible` but for the day). The same rule as `visible`, openToSql, the types and inCategories on
 * the offer row; the rows' indexes hold only rows on sale and carry these columns, so a count
 * reads one index and no offer.
 */
export function rowMatches(alias: string, s: VisibilityFilters): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  const conditions = [
    sql<SqlBool>`${a('on_sale')}`,
    sql<SqlBool>`${a('start_date')} <= ${s.today}`,
    sql<SqlBool>`${a('end_date')} >= ${s.today}`,
    vouchersUnexpiredSql(s.today, alias),
    openToSql(s.clientId, s.today, alias),
  ];
  if (s.types) conditions.push(sql<SqlBool>`${a('type')} = any(${sql.val([...s.types])}::text[])`);
  if (s.categoryIds) conditions.push(sql<SqlBool>`${a('category_ids')} && ${sql.val([...s.categoryIds])}::int[]`);
  if (s.keywords) conditions.push(matchesKeywords(a('offer_id'), s.keywords));
  return conditions;
}

/**
 * The offer has a search document (migration 0073) matching every word of a keyword search: the
 * keyword filter of a search sorted by other than relevance (store/distribution-keywords.ts).
 */
function matchesKeywords(offerId: Expression<unknown>, q: KeywordQuery): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from offer_search_documents d where d.offer_id = ${offerId} and d.words @@ ${q.all}::tsquery)`;
}

/**
 * The place filters without a centre, on the offer row `o`, or on the search row `searchRow` (its
 * offer_id) when one is named: a location in the city or state (a probe of the offer's locations),
 * or with the country alone the nationwide rule (the offer's flag); none without a place.
 */
export function inPlaceOrNationwide(place: Place, searchRow?: string): Expression<SqlBool>[] {
  const offerId = sql.ref(searchRow ? `${searchRow}.offer_id` : 'o.id');
  if (place.state || place.city)
    return [
      sql<SqlBool>`exists (select 1 from offer_locations l where l.offer_id = ${offerId} and ${sql.join(inPlace('l', place), sql` and `)})`,
    ];
  if (!place.country) return [];
  // Nationwide: redeemable anywhere in the country (a location naming only the country), or anywhere
  // at all (no location, `*`). The offer row's flag says so (migration 0007). The flag is not
  // empty then, which names the partial index of nationwide offers (migration 0037) to the planner.
  const nationwide = sql<SqlBool>`o.nationwide_countries && array['*', ${place.country}]::text[] and cardinality(o.nationwide_countries) > 0`;
  return [searchRow ? sql<SqlBool>`exists (select 1 from offers o where o.id = ${offerId} and ${nationwide})` : nationwide];
}

/** offerClosedAt (domain/offer-closing.ts) in SQL, for recently_closed. */
function closedAtSql(today: string) {
  return sql<Date | null>`coalesce(o.closed_at, case
    when o.status not in ('approved', 'resumed') then o.updated_at
    when o.end_date < ${today}::date then (o.end_date + 1)::timestamp at time zone 'UTC'
    when ${VOUCHERS_EXPIRE_ON} < ${today} then greatest((${VOUCHERS_EXPIRE_ON}::date + 1)::timestamp at time zone 'UTC', o.availability_changed_at)
    when o.quantity_in_stock = 0 then coalesce(o.availability_changed_at, o.updated_at)
  end)`;
}

/**
 * Implied by `closedAtSql(today) >= since` (one arm per branch of its rule), so adding it changes no
 * result; each arm has an index (migration 0016), so Postgres reads only offers that changed since,
 * not every offer ever published, to find the ones that left the catalogue.
 */
function closedSince(eb: Eb, since: Date, today: string): Expression<SqlBool> {
  const sellable = eb('o.status', 'in', [...SELLABLE]);
  return eb.or([
    eb('o.closed_at', '>=', since),
    // Off sale by status (its last change), or sold out (when the stock reached zero, else its last change).
    eb('o.updated_at', '>=', since),
    // Sold out, or its vouchers expired: the review workflow records that instant as a change of
    // availability (an offer whose workflow has not recorded it yet is found by the next poll).
    eb.and([sellable, eb('o.availability_changed_at', '>=', since)]),
    // Ended: the day after end_date began at or after `since`, and end_date is before today.
    eb.and([sellable, eb('o.end_date', '>=', addDays(utcDay(since), -1)), eb('o.end_date', '<', today)]),
  ]);
}

/**
 * Offers filed under one of these categories: the offer's `category_ids` (generated from the same
 * document field writeSearchRows files in offer_categories; migration 0031), carried by the
 * covering index, so the check reads no other table.
 */
function inCategories(categoryIds: readonly number[]): Expression<SqlBool> {
  return sql<SqlBool>`o.category_ids && ${sql.val([...categoryIds])}::int[]`;
}

/** Visible offers, or with recently_* the union of the changes each names (recently_closed: the only invisible ones). */
function visibleOrRecent(eb: Eb, s: VisibilityFilters): Expression<SqlBool> {
  const since = recentSince(s, s.now);
  const recent: Expression<SqlBool>[] = [];
  if (since.published) recent.push(eb.and([visible(eb, s.today), eb('o.published_at', '>=', since.published)]));
  if (since.updated) {
    // Changed, or (re)entered the catalogue: back in stock, or its start_date arrived (which also
    // covers offers approved early by review workflows started before publication at start_date).
    const { updated } = since;
    recent.push(
      eb.and([
        visible(eb, s.today),
        eb.or([
          eb('o.updated_at', '>=', updated),
          eb('o.availability_changed_at', '>=', updated),
          eb('o.start_date', '>=', utcDay(updated)),
        ]),
      ]),
    );
  }
  if (since.closed)
    recent.push(
      eb.and([eb('o.published_at', 'is not', null), closedSince(eb, since.closed, s.today), eb(closedAtSql(s.today), '>=', since.closed)]),
    );
  return recent.length ? eb.or(recent) : visible(eb, s.today);
}

/** Every filter of the search but the radius, as one condition on `o` (without the place when `withPlace` is false). */
export function filters(eb: Eb, s: VisibilityFilters, place: Place, withPlace = true): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (!s.centre && withPlace) conditions.push(...inPlaceOrNationwide(place));
  if (s.types) conditions.push(eb('o.type', 'in', s.types));
  if (s.categoryIds) conditions.push(inCategories(s.categoryIds));
  if (s.keywords) conditions.push(matchesKeywords(sql.ref('o.id'), s.keywords));
  conditions.push(openToSql(s.clientId, s.today));
  conditions.push(visibleOrRecent(eb, s));
  return eb.and(conditions);
}

/**
 * One offer this distribution client may read: on sale now, or (whatever its state) one the client
 * holds vouchers or a reservation of, for customer service. Undefined (→ 404) otherwise, and for
 * an offer exclusive to other clients today (it does not exist for this one).
 */
export function findReadableOffer(db: Db, clientId: string, id: string, today: string): Promise<OfferRow | undefined> {
  return db
    .selectFrom('offers as o')
    .selectAll('o')
    .where('o.id', '=', id)
    .where(openToSql(clientId, today))
    .where((eb) =>
      eb.or([
        visible(eb, today),
        sql<SqlBool>`exists (select 1 from vouchers v where v.offer_id = o.id and v.client_id = ${clientId})`,
        sql<SqlBool>`exists (select 1 from reservations r where r.offer_id = o.id and r.client_id = ${clientId})`,
      ]),
    )
    .executeTakeFirst();
}
