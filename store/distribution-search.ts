import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, OfferRow } from './database';
import type { Db } from './db';
import { SELLABLE } from '../domain/offer-lifecycle';
import { SEARCH_TOTAL_BOUND, type Coordinates, type SortBy } from '../domain/offer-search';
import type { BoundedPaged, Page } from '../domain/paging';
import { addDays, DAY_MS, utcDay } from '../domain/dates';

/*
 * The distribution read model's queries (docs/distribution-search.md): which offers publishers
 * see (visibility and the nationwide rule are defined here once, in SQL) and the offer search.
 */

/** The offer columns the distribution view reads (schemas/distribution-offer-view.ts); a search fetches only these. */
export const DISTRIBUTION_VIEW_COLUMNS = [
  'id',
  'client_id',
  'advertiser_id',
  'status',
  'quantity_in_stock',
  'document',
  'end_date',
  'published_at',
  'updated_at',
  'closed_at',
  'availability_changed_at',
] as const satisfies ReadonlyArray<keyof OfferRow>;

/** A search hit: the offer's columns the view reads, with its distance in miles from the centre of a radius search. */
export type FoundOffer = Pick<OfferRow, (typeof DISTRIBUTION_VIEW_COLUMNS)[number]> & { distance?: number | null };

/** A search as the data layer runs it: the service has resolved the centre, the categories and the sort. */
export interface OfferSearch extends Page {
  /** Centre of a radius search, and the radius in miles around it. */
  centre?: Coordinates;
  radius: number;
  /** Place filters, matched against the redemption locations. */
  country_code?: string;
  state_code?: string;
  city?: string;
  types?: readonly string[];
  /** The asked categories with all their descendants. */
  categoryIds?: readonly number[];
  /** recently_*: days back from `now`. */
  recently_published?: number;
  recently_updated?: number;
  recently_closed?: number;
  sort: SortBy;
  /** The UTC day visibility is judged on, and the instant `recently_*` count back from. */
  today: string;
  now: Date;
  /** The distribution client searching: an offer exclusive to others is not found (domain/exclusivity.ts). */
  clientId: string;
  /** Count matches up to this many (default SEARCH_TOTAL_BOUND; tests set a small one). */
  totalBound?: number;
}

type Eb = ExpressionBuilder<Database & { o: Database['offers'] }, 'o'>;
/** A place filter normalized as the search rows store it (offers.ts writeSearchRows). */
interface Place {
  country?: string;
  state?: string;
  city?: string;
}

/** The offer's fixed `vouchers_expire.on` (text `YYYY-MM-DD`), or null. */
const VOUCHERS_EXPIRE_ON = sql<string | null>`(o.document #>> '{vouchers_expire,on}')`;

/**
 * A voucher bought on `today` would not be expired yet: `expiredAtPurchase` (domain/voucher-expiry.ts)
 * in SQL. Only a fixed `on` can be past; `YYYY-MM-DD` text compares as dates do.
 */
function vouchersUnexpiredSql(today: string) {
  return sql<SqlBool>`coalesce(${VOUCHERS_EXPIRE_ON} >= ${today}, true)`;
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
 * has begun), or exclusive to this client.
 */
function openToSql(clientId: string, today: string): Expression<SqlBool> {
  return sql<SqlBool>`(
    coalesce((o.document->'exclusivity'->>'exclusive')::boolean, false) is not true
    or (o.document->'exclusivity'->>'until') <= ${today}
    or coalesce(o.document->'exclusivity'->'channels', '[]'::jsonb) @> jsonb_build_array(${clientId}::text)
  )`;
}

/** distributionClosedAt (schemas/distribution-offer-view.ts) in SQL, for recently_closed. */
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

const EARTH_RADIUS_MILES = 3958.7613;
const MILES_PER_DEGREE_LATITUDE = 69.0545;

/** Great-circle (haversine) distance in miles from the centre to a location row `l`. */
function haversine(c: Coordinates) {
  const lat = sql`${c.latitude}::float8`;
  const lng = sql`${c.longitude}::float8`;
  return sql<number>`${sql.lit(EARTH_RADIUS_MILES)} * 2 * asin(least(1, sqrt(
    power(sin(radians(l.latitude - ${lat}) / 2), 2)
    + cos(radians(${lat})) * cos(radians(l.latitude)) * power(sin(radians(l.longitude - ${lng}) / 2), 2)
  )))`;
}

/** The box around the circle; longitude degrees shrink with latitude (clamped near the poles). */
export function boundingBox(c: Coordinates, miles: number) {
  const dLat = miles / MILES_PER_DEGREE_LATITUDE;
  const cosLat = Math.max(Math.cos((c.latitude * Math.PI) / 180), 0.01);
  const dLng = Math.min(180, miles / (MILES_PER_DEGREE_LATITUDE * cosLat));
  return { minLat: c.latitude - dLat, maxLat: c.latitude + dLat, minLng: c.longitude - dLng, maxLng: c.longitude + dLng };
}

/**
 * Each offer with a redemption location within `radius` miles of the centre, and the distance to
 * the nearest one: locations inside the bounding box (GiST index), then within the exact radius.
 */
function nearbyOffers(db: Db, centre: Coordinates, radius: number, place: Place) {
  const box = boundingBox(centre, radius);
  let inBox = db
    .selectFrom('offer_locations as l')
    .select(['l.offer_id', haversine(centre).as('d')])
    .where(sql<SqlBool>`l.latitude is not null and l.longitude is not null`)
    .where(
      sql<SqlBool>`point(l.longitude, l.latitude) <@ box(point(${box.minLng}::float8, ${box.minLat}::float8), point(${box.maxLng}::float8, ${box.maxLat}::float8))`,
    );
  if (place.country) inBox = inBox.where('l.country_code', '=', place.country);
  if (place.state) inBox = inBox.where('l.state_code', '=', place.state);
  if (place.city) inBox = inBox.where('l.city', '=', place.city);
  // The distance is computed once per location in the box, then filtered and reduced to the nearest.
  return db
    .selectFrom(inBox.as('b'))
    .select(['b.offer_id', sql<number>`min(b.d)`.as('distance')])
    .where('b.d', '<=', sql<number>`${radius}::float8`)
    .groupBy('b.offer_id');
}

/** Without a centre: a location in the city or state, or (country alone) the nationwide rule. */
function placeCondition(eb: Eb, place: Place): Expression<SqlBool> | undefined {
  const { country, state, city } = place;
  if (city || state) {
    let located = eb
      .selectFrom('offer_locations as l')
      .select(sql`1`.as('one'))
      .whereRef('l.offer_id', '=', 'o.id');
    if (country) located = located.where('l.country_code', '=', country);
    if (state) located = located.where('l.state_code', '=', state);
    if (city) located = located.where('l.city', '=', city);
    return eb.exists(located);
  }
  if (!country) return undefined;
  // Nationwide: redeemable anywhere in the country (a location naming only the country), or anywhere
  // at all (no location, `*`). The offer row's flag says so (migration 0007), GIN-indexed.
  return sql<SqlBool>`o.nationwide_countries && array['*', ${country}]::text[]`;
}

/** Offers filed under one of these categories. */
function inCategories(eb: Eb, categoryIds: readonly number[]): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('offer_categories as oc')
      .select(sql`1`.as('one'))
      .whereRef('oc.offer_id', '=', 'o.id')
      .where('oc.category_id', 'in', categoryIds),
  );
}

/** Visible offers, or with recently_* the union of the changes each names (recently_closed: the only invisible ones). */
function visibleOrRecent(eb: Eb, s: OfferSearch): Expression<SqlBool> {
  const cutoff = (days: number) => new Date(s.now.getTime() - days * DAY_MS);
  const recent: Expression<SqlBool>[] = [];
  if (s.recently_published) recent.push(eb.and([visible(eb, s.today), eb('o.published_at', '>=', cutoff(s.recently_published))]));
  if (s.recently_updated) {
    // Changed, or (re)entered the catalogue: back in stock, or its start_date arrived (which also
    // covers offers approved early by review workflows started before publication at start_date).
    const since = cutoff(s.recently_updated);
    recent.push(
      eb.and([
        visible(eb, s.today),
        eb.or([eb('o.updated_at', '>=', since), eb('o.availability_changed_at', '>=', since), eb('o.start_date', '>=', utcDay(since))]),
      ]),
    );
  }
  if (s.recently_closed) {
    const since = cutoff(s.recently_closed);
    recent.push(eb.and([eb('o.published_at', 'is not', null), closedSince(eb, since, s.today), eb(closedAtSql(s.today), '>=', since)]));
  }
  return recent.length ? eb.or(recent) : visible(eb, s.today);
}

/** Every filter of the search but the radius, as one condition on `o`. */
function filters(eb: Eb, s: OfferSearch, place: Place): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  const where = s.centre ? undefined : placeCondition(eb, place);
  if (where) conditions.push(where);
  if (s.types) conditions.push(eb('o.type', 'in', s.types));
  if (s.categoryIds) conditions.push(inCategories(eb, s.categoryIds));
  conditions.push(openToSql(s.clientId, s.today));
  conditions.push(visibleOrRecent(eb, s));
  return eb.and(conditions);
}

const SORT_COLUMNS: Record<Exclude<SortBy['field'], 'distance'>, string> = {
  price: 'o.price_amount',
  value: 'o.value_amount',
  discount: 'o.discount_percent',
  title: 'o.title',
  start_date: 'o.start_date',
  end_date: 'o.end_date',
  published_at: 'o.published_at',
  updated_at: 'o.updated_at',
};

/** The ORDER BY key and direction of the sort, empty values last either way; `distance` is the column holding a radius search's distance. */
function sortOrder(sort: SortBy, distance: string) {
  const sortKey = sort.field === 'distance' ? sql.ref(distance) : sql.ref(SORT_COLUMNS[sort.field]);
  return sort.direction === 'asc' ? sql`${sortKey} asc nulls last` : sql`${sortKey} desc nulls last`;
}

/**
 * One page of the offers a publisher may see that match every filter, and their total counted up
 * to SEARCH_TOTAL_BOUND (past it, the bound with `total_relation: 'gte'`). A radius search joins
 * each offer with its nearest redemption location within the radius.
 *
 * One statement answers the page: the page is chosen on narrow rows (id, sort key, distance), then
 * only its offers' wide rows are joined, in the same order. The count runs in parallel and stops
 * at the bound's next match (`count(*)` over a `LIMIT bound + 1` subquery).
 */
export async function searchDistributionOffers(db: Db, s: OfferSearch): Promise<BoundedPaged<FoundOffer>> {
  const place: Place = { country: s.country_code, state: s.state_code?.toUpperCase(), city: s.city?.toLowerCase() };
  let base = db.selectFrom('offers as o');
  if (s.centre) {
    const near = nearbyOffers(db, s.centre, s.radius, place);
    base = base.innerJoin(near.as('near'), 'near.offer_id', 'o.id') as unknown as typeof base;
  }
  const query = base.where((eb) => filters(eb, s, place));
  const hits = query
    .select(['o.id', s.centre ? sql<number>`near.distance`.as('distance') : sql<null>`null::float8`.as('distance')])
    .orderBy(sortOrder(s.sort, 'near.distance'))
    .orderBy('o.id')
    .limit(s.per_page)
    .offset((s.page - 1) * s.per_page);
  const page = db
    .selectFrom(hits.as('p'))
    .innerJoin('offers as o', 'o.id', 'p.id')
    .select(DISTRIBUTION_VIEW_COLUMNS.map((c) => `o.${c}` as const))
    .select(['p.distance'])
    .orderBy(sortOrder(s.sort, 'p.distance'))
    .orderBy('o.id');
  const [rows, counted] = await Promise.all([page.execute(), countUpTo(db, query.select(sql`1`.as('one')), s.totalBound ?? SEARCH_TOTAL_BOUND)]);
  return { rows, ...counted };
}

/** How many rows `matches` gives, reading at most `bound + 1` of them: exact up to `bound`, else `bound` as a lower bound. */
async function countUpTo(db: Db, matches: SelectQueryBuilder<any, any, { one: unknown }>, bound: number) {
  const { n } = await db
    .selectFrom(matches.limit(bound + 1).as('m'))
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const count = Number(n);
  return count > bound ? { total: bound, total_relation: 'gte' as const } : { total: count, total_relation: 'eq' as const };
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
        eb.exists(
          eb
            .selectFrom('vouchers as v')
            .select(sql`1`.as('one'))
            .whereRef('v.offer_id', '=', 'o.id')
            .where('v.client_id', '=', clientId),
        ),
        eb.exists(
          eb
            .selectFrom('reservations as r')
            .select(sql`1`.as('one'))
            .whereRef('r.offer_id', '=', 'o.id')
            .where('r.client_id', '=', clientId),
        ),
      ]),
    )
    .executeTakeFirst();
}
