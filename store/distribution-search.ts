import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, OfferRow } from './database';
import type { Db } from './db';
import { SELLABLE } from '../domain/offer-lifecycle';
import {
  NULLABLE_SORT_FIELDS,
  SEARCH_TOTAL_BOUND,
  SORT_KEY_KINDS,
  type Coordinates,
  type SearchCursor,
  type SortBy,
} from '../domain/offer-search';
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
  /** Continue after this position (keyset paging) instead of at `page`; made for `sort` (the service checks). */
  after?: SearchCursor;
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
function rowMatches(alias: string, s: OfferSearch): Expression<SqlBool>[] {
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
  return conditions;
}

/** Without recently_*, a search is of offers on sale: their search rows alone answer its filters. */
function onlyOnSale(s: OfferSearch): boolean {
  return !s.recently_published && !s.recently_updated && !s.recently_closed;
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

/** Great-circle (haversine) distance in miles from the centre to a location row aliased `alias`. */
function haversine(c: Coordinates, alias = 'l') {
  const lat = sql`${c.latitude}::float8`;
  const lng = sql`${c.longitude}::float8`;
  const la = sql.ref(`${alias}.latitude`);
  const lo = sql.ref(`${alias}.longitude`);
  return sql<number>`${sql.lit(EARTH_RADIUS_MILES)} * 2 * asin(least(1, sqrt(
    power(sin(radians(${la} - ${lat}) / 2), 2)
    + cos(radians(${lat})) * cos(radians(${la})) * power(sin(radians(${lo} - ${lng}) / 2), 2)
  )))`;
}

/** The box around the circle; longitude degrees shrink with latitude (clamped near the poles). */
export function boundingBox(c: Coordinates, miles: number) {
  const dLat = miles / MILES_PER_DEGREE_LATITUDE;
  const cosLat = Math.max(Math.cos((c.latitude * Math.PI) / 180), 0.01);
  const dLng = Math.min(180, miles / (MILES_PER_DEGREE_LATITUDE * cosLat));
  return { minLat: c.latitude - dLat, maxLat: c.latitude + dLat, minLng: c.longitude - dLng, maxLng: c.longitude + dLng };
}

/** A location as a point on the Earth (earthdistance's cube, GiST-indexed by migration 0031). */
const earthPoint = (alias: string) => sql`ll_to_earth(${sql.ref(`${alias}.latitude`)}, ${sql.ref(`${alias}.longitude`)})`;
const earthCentre = (c: Coordinates) => sql`ll_to_earth(${c.latitude}::float8, ${c.longitude}::float8)`;

/**
 * Conditions on a location `alias` (`l`) of a radius search: placed, inside the circle's bounding
 * box (the point GiST index; for a search sorted by distance, the Earth-cube box on the KNN index),
 * within the exact radius, and in the place filters.
 */
function inCircle(alias: string, centre: Coordinates, radius: number, place: Place, knn = false): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  const box = boundingBox(centre, radius);
  const conditions = [
    sql<SqlBool>`${a('latitude')} is not null and ${a('longitude')} is not null`,
    knn
      ? // earthdistance's unit is its own Earth radius (earth()); a hair wider, the haversine below decides.
        sql<SqlBool>`earth_box(${earthCentre(centre)}, ${radius * 1.001}::float8 * earth() / ${sql.lit(EARTH_RADIUS_MILES)}) @> ${earthPoint(alias)}`
      : sql<SqlBool>`point(${a('longitude')}, ${a('latitude')}) <@ box(point(${box.minLng}::float8, ${box.minLat}::float8), point(${box.maxLng}::float8, ${box.maxLat}::float8))`,
    sql<SqlBool>`${haversine(centre, alias)} <= ${radius}::float8`,
  ];
  return [...conditions, ...inPlace(alias, place)];
}

/** inCircle without the bounding box: a filter on rows read in another order (no point index). */
function withinRadius(alias: string, centre: Coordinates, radius: number, place: Place): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  return [
    sql<SqlBool>`${a('latitude')} is not null and ${a('longitude')} is not null`,
    sql<SqlBool>`${haversine(centre, alias)} <= ${radius}::float8`,
    ...inPlace(alias, place),
  ];
}

/** The place filters on a location `alias`. */
function inPlace(alias: string, place: Place): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  const conditions: Expression<SqlBool>[] = [];
  if (place.country) conditions.push(sql<SqlBool>`${a('country_code')} = ${place.country}`);
  if (place.state) conditions.push(sql<SqlBool>`${a('state_code')} = ${place.state}`);
  if (place.city) conditions.push(sql<SqlBool>`${a('city')} = ${place.city}`);
  return conditions;
}

/** Location `l` (in the place) is its offer's first one there, so counting locations counts each offer once. */
function firstOfItsOffer(db: Db, place: Place): Expression<SqlBool> {
  const earlier = db
    .selectFrom('offer_locations as l2')
    .select(sql`1`.as('one'))
    .where(sql<SqlBool>`l2.offer_id = l.offer_id and l2.position < l.position`)
    .where((eb) => eb.and(inPlace('l2', place)));
  return sql<SqlBool>`not exists (${earlier})`;
}

/**
 * Location `l` (in the circle) is its offer's nearest one there (ties: the lower position), so an
 * offer with several locations in the circle is found once, at its nearest. One index probe of the
 * offer's other locations (most offers have one).
 */
function nearestOfItsOffer(db: Db, centre: Coordinates, place: Place): Expression<SqlBool> {
  const d = haversine(centre, 'l');
  const d2 = haversine(centre, 'l2');
  let nearer = db
    .selectFrom('offer_locations as l2')
    .select(sql`1`.as('one'))
    .where(sql<SqlBool>`l2.offer_id = l.offer_id and l2.position <> l.position`)
    .where(sql<SqlBool>`l2.latitude is not null and l2.longitude is not null`)
    .where(sql<SqlBool>`(${d2} < ${d} or (${d2} = ${d} and l2.position < l.position))`);
  nearer = nearer.where((eb) => eb.and(inPlace('l2', place)));
  return sql<SqlBool>`not exists (${nearer})`;
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
  // at all (no location, `*`). The offer row's flag says so (migration 0007). The flag is not
  // empty then, which names the partial index of nationwide offers (migration 0037) to the planner.
  return sql<SqlBool>`o.nationwide_countries && array['*', ${country}]::text[] and cardinality(o.nationwide_countries) > 0`;
}

/**
 * Offers filed under one of these categories: the offer's `category_ids` (generated from the same
 * document field writeSearchRows files in offer_categories; migration 0031), carried by the
 * covering index, so the check reads no other table.
 */
function inCategories(eb: Eb, categoryIds: readonly number[]): Expression<SqlBool> {
  return sql<SqlBool>`o.category_ids && ${sql.val([...categoryIds])}::int[]`;
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
function filters(eb: Eb, s: OfferSearch, place: Place, withPlace = true): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  const where = s.centre || !withPlace ? undefined : placeCondition(eb, place);
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

/** The sort keys a location row carries (migration 0037). */
const ROW_SORT_COLUMNS: Partial<Record<SortBy['field'], string>> = { price: 'l.price_amount', published_at: 'l.published_at' };

/** The ORDER BY of a sort key `key`: in the sort's direction, empty values last either way. */
function sortOrder(sort: SortBy, key: Expression<unknown>) {
  return sort.direction === 'asc' ? sql`${key} asc nulls last` : sql`${key} desc nulls last`;
}

/**
 * The rows after the cursor `after` in the order `sortOrder(key)`, then `id` (the keyset
 * condition, docs/distribution-search.md "Paging by cursor"): one condition, or for a key that
 * may be empty two whose rows are read apart (the keyed rows after the cursor, then every row
 * without a key: those come last), so each can walk an index in its order. Ascending, the
 * keyed part is the row comparison `(key, id) > (k, i)` that a btree on (key, id) starts at;
 * descending with ids ascending (no row comparison says that), `key <= k` bounds the walk and the
 * ties at `k` are filtered by id.
 */
function afterCursor(after: SearchCursor, key: Expression<unknown>, id: Expression<unknown>): Expression<SqlBool>[] {
  if (after.key === null) return [sql<SqlBool>`${key} is null and ${id} > ${after.id}`];
  const k = sql`${after.key}::${sql.raw(SORT_KEY_KINDS[after.sort.field])}`;
  const keyed =
    after.sort.direction === 'asc'
      ? sql<SqlBool>`(${key}, ${id}) > (${k}, ${after.id})`
      : sql<SqlBool>`${key} <= ${k} and (${key} < ${k} or ${id} > ${after.id})`;
  return NULLABLE_SORT_FIELDS.has(after.sort.field) ? [keyed, sql<SqlBool>`${key} is null`] : [keyed];
}

/** A page's sort key as the cursor carries it, exactly (timestamps to the microsecond, UTC). */
function cursorKey(field: SortBy['field'], key: Expression<unknown>): RawBuilder<SearchCursor['key']> {
  switch (SORT_KEY_KINDS[field]) {
    case 'timestamptz':
      return sql`to_char(${key} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    case 'date':
      return sql`to_char(${key}, 'YYYY-MM-DD')`;
    case 'float8':
      return sql`${key}`;
    default:
      return sql`${key}::text`;
  }
}

/** The page's offers in order, before their wide rows are joined: id, distance and the sort key. */
type Hits = SelectQueryBuilder<any, any, { id: string; distance: number | null; sort_key: unknown }>;

/**
 * One page of the offers a publisher may see that match every filter, and their total counted up
 * to SEARCH_TOTAL_BOUND (past it, the bound with `total_relation: 'gte'`). Each query reads in the
 * order it answers (docs/distribution-search.md, "How the search is answered"):
 *
 * - no centre: the offers in the sort's index order (price, newest…), filtered, up to the page;
 * - a centre, by distance: the locations nearest first (KNN on the Earth-cube index), each offer
 *   once at its nearest location, up to the page;
 * - a centre, another sort: after the count, a circle of at most the bound's matches is gathered
 *   and sorted; a fuller one is read in the sort's index order, the circle a filter.
 *
 * Without recently_*, the count and a radius search's page filter the search rows by their copies
 * of their offers' values (rowMatches): one index each, no offer visited per match. The page is
 * chosen on narrow rows (id, distance, sort key), then only its offers' wide rows are joined. A
 * page starts after `s.after` (keyset: each order reads from the cursor on, in its index where it
 * has one) or at its page number; one more offer than the page is read, and `next` is where the
 * page ended when there is one.
 */
export async function searchDistributionOffers(db: Db, s: OfferSearch): Promise<BoundedPaged<FoundOffer> & { next: SearchCursor | null }> {
  const place: Place = { country: s.country_code, state: s.state_code?.toUpperCase(), city: s.city?.toLowerCase() };
  const bound = s.totalBound ?? SEARCH_TOTAL_BOUND;
  const readRows = onlyOnSale(s);
  const offers = db.selectFrom('offers as o').where((eb) => filters(eb, s, place));
  /**
   * Location rows `l` matching the conditions on them (the place among them) and every other
   * filter: by their own copies, or (recently_*) their offers'.
   */
  const locations = (conditions: Expression<SqlBool>[]): LocationRows =>
    readRows
      ? db.selectFrom('offer_locations as l').where((eb) => eb.and([...conditions, ...rowMatches('l', s)]))
      : (db
          .selectFrom('offer_locations as l')
          .innerJoin('offers as o', 'o.id', 'l.offer_id')
          .where((eb) => eb.and([...conditions, filters(eb, s, place, false)])) as unknown as LocationRows);
  /** The page's hits in order, with a further condition (the cursor's); `key` and `id` are what they are ordered by. */
  let hits: (condition?: Expression<SqlBool>) => Hits;
  let key: RawBuilder<unknown>;
  let id: RawBuilder<unknown>;
  let counted;
  if (!s.centre) {
    key = sql.ref(SORT_COLUMNS[s.sort.field as keyof typeof SORT_COLUMNS]);
    id = sql.ref('o.id');
    hits = (condition) =>
      offers
        .select(['o.id', sql<number | null>`null::float8`.as('distance'), key.as('sort_key')])
        .$if(condition !== undefined, (q) => q.where(condition!))
        .orderBy(sortOrder(s.sort, key))
        .orderBy('o.id') as never;
    if (place.state || place.city) {
      // A state or city: counted from its locations (each offer at its first one there), not by
      // probing every offer in the sort's order for a location in the place.
      const byLocations = locations(inPlace('l', place));
      counted = countOffersOfRows(
        db,
        byLocations.select('l.offer_id'),
        byLocations.where(firstOfItsOffer(db, place)).select('l.offer_id'),
        bound,
      );
    } else if (readRows && s.categoryIds && !place.country) {
      // Categories: counted from their category rows (each offer at the first asked category it is filed under).
      const ids = sql.val([...s.categoryIds]);
      const byCategories = db
        .selectFrom('offer_categories as c')
        .where(sql<SqlBool>`c.category_id = any(${ids}::int[])`)
        .where((eb) => eb.and(rowMatches('c', s)));
      const firstAsked = sql<SqlBool>`not exists (select 1 from unnest(c.category_ids) x where x = any(${ids}::int[]) and x < c.category_id)`;
      counted = countOffersOfRows(db, byCategories.select('c.offer_id'), byCategories.where(firstAsked).select('c.offer_id'), bound);
    } else counted = countUpTo(db, offers.select(sql`1`.as('one')), bound);
  } else {
    const centre = s.centre;
    // The circle's matching locations (what the count reads), and the same reduced to one row per
    // offer, at its nearest location (what a page shows).
    const inTheCircle = (knn: boolean) => locations(inCircle('l', centre, s.radius, place, knn));
    const located = (knn: boolean) => inTheCircle(knn).where(nearestOfItsOffer(db, centre, place));
    counted = countOffersOfRows(db, inTheCircle(false).select('l.offer_id'), located(false).select('l.offer_id'), bound);
    if (s.sort.field === 'distance') {
      // Ordered (and a cursor placed) by the chord to the centre, which the KNN index reads in; it
      // orders as the great-circle distance shown does.
      key = sql`${earthPoint('l')} <-> ${earthCentre(centre)}`;
      id = sql.ref('l.offer_id');
      hits = (condition) =>
        located(true)
          .select(['l.offer_id as id', haversine(centre).as('distance'), key.as('sort_key')])
          .$if(condition !== undefined, (q) => q.where(condition!))
          .orderBy(sortOrder(s.sort, key))
          .orderBy('l.offer_id') as never;
    } else if (readRows && ROW_SORT_COLUMNS[s.sort.field]) {
      // Price or newest: the locations carry the sort key. A circle of at most the bound's matches
      // is gathered (the point index) and sorted; a fuller one is read in the key's order (its own
      // index), the circle a filter on each row's point, until the page is full.
      const { total_relation } = await counted;
      const rows = () =>
        total_relation === 'eq'
          ? located(false)
          : locations(withinRadius('l', centre, s.radius, place)).where(nearestOfItsOffer(db, centre, place));
      key = sql.ref(ROW_SORT_COLUMNS[s.sort.field]!);
      id = sql.ref('l.offer_id');
      hits = (condition) =>
        rows()
          .select(['l.offer_id as id', haversine(centre).as('distance'), key.as('sort_key')])
          .$if(condition !== undefined, (q) => q.where(condition!))
          .orderBy(sortOrder(s.sort, key))
          .orderBy('l.offer_id') as never;
    } else {
      const { total_relation } = await counted;
      const distance = db
        .selectFrom('offer_locations as l')
        .select(sql<number>`min(${haversine(centre)})`.as('d'))
        .where(sql<SqlBool>`l.offer_id = o.id`)
        .where((eb) => eb.and(inCircle('l', centre, s.radius, place)));
      const base: SelectQueryBuilder<Database, 'offers', { id: string; distance: number | null }> =
        total_relation === 'eq'
          ? // At most the bound's matches: gathered from the circle, then sorted.
            (located(false).select(['l.offer_id as id', haversine(centre).as('distance')]) as never)
          : // A fuller circle: the sort's index order, each offer checked against the circle (its own locations).
            (offers.select(['o.id', distance.as('distance')]).where((eb) => eb(distance, 'is not', null)) as never);
      key = sql.ref(SORT_COLUMNS[s.sort.field]);
      id = sql.ref('o.id');
      hits = (condition) =>
        db
          .selectFrom(base.as('c'))
          .innerJoin('offers as o', 'o.id', 'c.id')
          .select(['o.id', 'c.distance', key.as('sort_key')])
          .$if(condition !== undefined, (q) => q.where(condition!))
          .orderBy(sortOrder(s.sort, key))
          .orderBy('o.id') as never;
    }
  }
  // One more than the page: whether another page follows.
  const limit = s.per_page + 1;
  let chosen: Hits;
  if (!s.after)
    chosen = hits()
      .limit(limit)
      .offset((s.page - 1) * s.per_page);
  else {
    // Each part of the keyset condition in its own order, up to the page; together, sorted again below.
    const [first, ...rest] = afterCursor(s.after, key, id).map((condition) => hits(condition).limit(limit));
    chosen = rest.reduce<Hits>(
      (union, part, i) => union.unionAll(db.selectFrom(part.as(`k${i + 1}`)).selectAll()) as never,
      db.selectFrom(first.as('k0')).selectAll() as never,
    );
  }
  const page = db
    .selectFrom(chosen.as('p'))
    .innerJoin('offers as o', 'o.id', 'p.id')
    .select(DISTRIBUTION_VIEW_COLUMNS.map((c) => `o.${c}` as const))
    .select(['p.distance', cursorKey(s.sort.field, sql.ref('p.sort_key')).as('cursor_key')])
    .orderBy(sortOrder(s.sort, sql.ref('p.sort_key')))
    .orderBy('p.id')
    .limit(limit);
  const [found, total] = await Promise.all([page.execute(), counted]);
  const last = found.length > s.per_page ? found[s.per_page - 1] : undefined;
  const rows = found.slice(0, s.per_page).map(({ cursor_key: _, ...row }) => row);
  return { rows, ...total, next: last ? { sort: s.sort, key: last.cursor_key, id: last.id } : null };
}

/** Location rows (`l`), joined to their offers (`o`) or not: what the counts and a radius search's pages read. */
type LocationRows = SelectQueryBuilder<Database & { l: Database['offer_locations'] }, 'l', object>;
/** Search rows reduced to the offer each is of. */
type OfferIdRows = SelectQueryBuilder<any, any, { offer_id: string }>;

/**
 * How many offers `rows` (matching search rows: locations or categories) are of, counted up to
 * `bound` like countUpTo, without the per-row check that each offer is counted once
 * (`deduplicated`, one probe per row) where it cannot change the answer: the distinct offers of
 * the first `bound + 1` rows are exact when there were no more rows, and more than the bound when
 * each row was another offer. Only otherwise (an offer twice among them) the deduplicated count runs.
 */
async function countOffersOfRows(db: Db, rows: OfferIdRows, deduplicated: OfferIdRows, bound: number) {
  const { n, offers } = await db
    .selectFrom(rows.limit(bound + 1).as('m'))
    .select([sql<string>`count(*)`.as('n'), sql<string>`count(distinct m.offer_id)`.as('offers')])
    .executeTakeFirstOrThrow();
  if (Number(n) <= bound) return { total: Number(offers), total_relation: 'eq' as const };
  if (Number(offers) > bound) return { total: bound, total_relation: 'gte' as const };
  return countUpTo(db, deduplicated, bound);
}

/** How many rows `matches` gives, reading at most `bound + 1` of them: exact up to `bound`, else `bound` as a lower bound. */
async function countUpTo(db: Db, matches: SelectQueryBuilder<any, any, object>, bound: number) {
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
