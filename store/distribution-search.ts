import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, OfferRow } from './database';
import type { Db } from './db';
import { SORT_KEY_KINDS, type SearchCursor, type SortBy } from '../domain/offer-search';
import type { BoundedPaged, Page } from '../domain/paging';
import { gathersCircle, keysetParts, planSearch, type LocationSortField } from '../domain/search-plan';
import { filters, rowMatches, type VisibilityFilters } from './distribution-visibility';
import { earthCentre, earthPoint, haversine, inCircle, nearestOfItsOffer, withinRadius } from './distribution-locations';
import { countMatches, type LocationRows, type SearchQueries, type Total } from './distribution-counts';
import {
  CANDIDATES,
  candidatesTotal,
  countCandidates,
  keywordCandidates,
  matchedFragments,
  totalOfCandidates,
} from './distribution-keywords';

/*
 * The offer search of the distribution read model (docs/distribution-search.md): one page of the
 * offers a publisher sees, in the order domain/search-plan.ts chose, and where the next starts.
 * Who sees what is store/distribution-visibility.ts; the circle, store/distribution-locations.ts;
 * the bounded total, store/distribution-counts.ts.
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
export type FoundOffer = Pick<OfferRow, (typeof DISTRIBUTION_VIEW_COLUMNS)[number]> & {
  distance?: number | null;
  /** A keyword search's fragments of the fields that matched, by field (store/distribution-keywords.ts matchedFragments). */
  matched?: Record<string, string>;
};

/** A search as the data layer runs it: the service has resolved the centre, the categories and the sort. */
export interface OfferSearch extends Page, VisibilityFilters {
  /** Continue after this position (keyset paging) instead of at `page`; made for `sort` (the service checks). */
  after?: SearchCursor;
}

const SORT_COLUMNS: Record<Exclude<SortBy['field'], 'distance' | 'relevance'>, string> = {
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
const LOCATION_SORT_COLUMNS: Record<LocationSortField, string> = { price: 'l.price_amount', published_at: 'l.published_at' };

/** The ORDER BY of a sort key `key`: in the sort's direction, empty values last either way. */
function sortOrder(sort: SortBy, key: Expression<unknown>) {
  return sort.direction === 'asc' ? sql`${key} asc nulls last` : sql`${key} desc nulls last`;
}

/**
 * The rows after the cursor `after` in the order `sortOrder(key)`, then `id`: the keyset
 * condition's parts (domain/search-plan.ts keysetParts) in SQL, each read apart in its order.
 */
function afterCursor(after: SearchCursor, key: Expression<unknown>, id: Expression<unknown>): Expression<SqlBool>[] {
  const k = sql`${after.key}::${sql.raw(SORT_KEY_KINDS[after.sort.field])}`;
  return keysetParts(after).map((part) => {
    switch (part) {
      case 'keyed-asc':
        return sql<SqlBool>`(${key}, ${id}) > (${k}, ${after.id})`;
      case 'keyed-desc':
        return sql<SqlBool>`${key} <= ${k} and (${key} < ${k} or ${id} > ${after.id})`;
      case 'unkeyed':
        return sql<SqlBool>`${key} is null`;
      case 'unkeyed-after':
        return sql<SqlBool>`${key} is null and ${id} > ${after.id}`;
    }
  });
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

/** What a page is read in the order of: its sort key and id, and its hits with a further condition (the cursor's). */
interface Ordering {
  key: RawBuilder<unknown>;
  id: RawBuilder<unknown>;
  hits: (condition?: Expression<SqlBool>) => Hits;
}

/** The ordering of `rows` (id, distance and `key` as sort_key selected) by `key`, then `id`. */
function ordered(rows: SelectQueryBuilder<any, any, any>, sort: SortBy, key: RawBuilder<unknown>, id: RawBuilder<unknown>): Ordering {
  const hits = (condition?: Expression<SqlBool>) =>
    rows
      .$if(condition !== undefined, (q) => q.where(condition!))
      .orderBy(sortOrder(sort, key))
      .orderBy(id) as Hits;
  return { key, id, hits };
}

/** The search's queries: its plan, the offers matching every filter, and location rows matching theirs. */
function searchQueries(db: Db, s: OfferSearch): SearchQueries {
  const plan = planSearch(s);
  const offers = db.selectFrom('offers as o').where((eb) => filters(eb, s, plan.place));
  // Location rows matching the conditions on them (the place among them) and every other filter:
  // by their own copies, or (recently_*) their offers'.
  const locations: SearchQueries['locations'] = (conditions) =>
    plan.fromSearchRows
      ? db.selectFrom('offer_locations as l').where((eb) => eb.and([...conditions, ...rowMatches('l', s)]))
      : (db
          .selectFrom('offer_locations as l')
          .innerJoin('offers as o', 'o.id', 'l.offer_id')
          .where((eb) => eb.and([...conditions, filters(eb, s, plan.place, false)])) as unknown as LocationRows);
  const centre = s.centre;
  // The circle's matching locations (what the count reads), and the same reduced to one row per
  // offer, at its nearest location (what a page shows).
  const inTheCircle = (knn: boolean) => locations(inCircle('l', centre!, s.radius, plan.place, knn));
  const located = (knn: boolean) => inTheCircle(knn).where(nearestOfItsOffer(db, centre!, plan.place));
  return { db, s, plan, offers, locations, inTheCircle, located };
}

/**
 * The order a page is read in (plan.page): the offers in the sort's index order; the locations
 * nearest first, ordered (and a cursor placed) by the chord to the centre, which the KNN index
 * reads in and which orders as the great-circle distance shown does; or, after the count, the
 * circle gathered and sorted, or a fuller one read in the sort's order with the circle a filter.
 */
async function pageOrdering(q: SearchQueries, counted: Promise<Total>): Promise<Ordering> {
  const { db, s, plan } = q;
  if (plan.page === 'relevance') {
    // The candidates of the statement's WITH (searchDistributionOffers), ranked once for the page and its total.
    const rows = (db as unknown as Db).selectFrom(sql.table(CANDIDATES).as('r')).selectAll() as SelectQueryBuilder<any, any, any>;
    return ordered(rows, s.sort, sql.ref('r.sort_key'), sql.ref('r.id'));
  }
  if (plan.page === 'offers') {
    const key = sql.ref(SORT_COLUMNS[s.sort.field as keyof typeof SORT_COLUMNS]);
    return ordered(
      q.offers.select(['o.id', sql<number | null>`null::float8`.as('distance'), key.as('sort_key')]),
      s.sort,
      key,
      sql.ref('o.id'),
    );
  }
  const centre = s.centre!;
  const locationHits = (rows: LocationRows, key: RawBuilder<unknown>) =>
    ordered(rows.select(['l.offer_id as id', haversine(centre).as('distance'), key.as('sort_key')]), s.sort, key, sql.ref('l.offer_id'));
  if (plan.page === 'nearest') return locationHits(q.located(true), sql`${earthPoint('l')} <-> ${earthCentre(centre)}`);
  const gathered = gathersCircle(await counted);
  if (plan.page === 'location-key') {
    // Price or newest: the locations carry the sort key; a fuller circle is read in its own index,
    // the circle a filter on each row's point, until the page is full.
    const rows = gathered
      ? q.located(false)
      : q.locations(withinRadius('l', centre, s.radius, plan.place)).where(nearestOfItsOffer(db, centre, plan.place));
    return locationHits(rows, sql.ref(LOCATION_SORT_COLUMNS[s.sort.field as LocationSortField]));
  }
  const distance = db
    .selectFrom('offer_locations as l')
    .select(sql<number>`min(${haversine(centre)})`.as('d'))
    .where(sql<SqlBool>`l.offer_id = o.id`)
    .where((eb) => eb.and(inCircle('l', centre, s.radius, plan.place)));
  const circle: SelectQueryBuilder<Database, 'offers', { id: string; distance: number | null }> = gathered
    ? (q.located(false).select(['l.offer_id as id', haversine(centre).as('distance')]) as never)
    : // A fuller circle: the sort's index order, each offer checked against the circle (its own locations).
      (q.offers.select(['o.id', distance.as('distance')]).where((eb) => eb(distance, 'is not', null)) as never);
  const key = sql.ref(SORT_COLUMNS[s.sort.field as keyof typeof SORT_COLUMNS]);
  const rows = db
    .selectFrom(circle.as('c'))
    .innerJoin('offers as o', 'o.id', 'c.id')
    .select(['o.id', 'c.distance', key.as('sort_key')]);
  return ordered(rows, s.sort, key, sql.ref('o.id'));
}

/**
 * The page's hits, one more than the page (whether another follows): at its page number, or after
 * `s.after`, each part of the keyset condition in its own order up to the page (sorted again by
 * the caller).
 */
function chosenHits(db: Db, s: OfferSearch, o: Ordering): Hits {
  const limit = s.per_page + 1;
  if (!s.after)
    return o
      .hits()
      .limit(limit)
      .offset((s.page - 1) * s.per_page);
  const [first, ...rest] = afterCursor(s.after, o.key, o.id).map((condition) => o.hits(condition).limit(limit));
  return rest.reduce<Hits>(
    (union, part, i) => union.unionAll(db.selectFrom(part.as(`k${i + 1}`)).selectAll()) as never,
    db.selectFrom(first.as('k0')).selectAll() as never,
  );
}

/**
 * One page of the offers a publisher may see that match every filter, and their total counted up
 * to SEARCH_TOTAL_BOUND (past it, the bound with `total_relation: 'gte'`). Each query reads in the
 * order it answers (docs/distribution-search-design.md; the choice is
 * domain/search-plan.ts planSearch). The page is chosen on narrow rows (id, distance, sort key),
 * then only its offers' wide rows are joined. A page starts after `s.after` (keyset: each order
 * reads from the cursor on, in its index where it has one) or at its page number; one more offer
 * than the page is read, and `next` is where the page ended when there is one.
 */
export async function searchDistributionOffers(db: Db, s: OfferSearch): Promise<BoundedPaged<FoundOffer> & { next: SearchCursor | null }> {
  // Keywords with no lexeme (only stop words) match nothing.
  if (s.keywords && !s.keywords.all) return { rows: [], total: 0, total_relation: 'eq', next: null };
  const q = searchQueries(db, s);
  // Keywords by relevance: one statement ranks the candidates (a WITH) for the page and counts them.
  const ranked = q.plan.page === 'relevance' ? () => keywordCandidates(db, s, s.keywords!, q.plan) : undefined;
  const counted = ranked ? Promise.resolve(undefined) : countMatches(q);
  const chosen = chosenHits(db, s, await pageOrdering(q, counted as Promise<Total>));
  const page = ((ranked ? db.with(CANDIDATES, ranked) : db) as Db)
    .selectFrom(chosen.as('p'))
    .innerJoin('offers as o', 'o.id', 'p.id')
    .select(DISTRIBUTION_VIEW_COLUMNS.map((c) => `o.${c}` as const))
    .select(['p.distance', cursorKey(s.sort.field, sql.ref('p.sort_key')).as('cursor_key')])
    .$if(s.keywords !== undefined, (page) => page.select(matchedFragments(s.keywords!).as('matched')))
    .$if(ranked !== undefined, (page) => page.select(candidatesTotal().as('candidates')))
    .orderBy(sortOrder(s.sort, sql.ref('p.sort_key')))
    .orderBy('p.id')
    .limit(s.per_page + 1);
  const [answer, counts] = await Promise.all([page.execute(), counted]);
  // An empty page past the candidates has no row to carry their count: counted apart then.
  const total = ranked
    ? answer.length
      ? totalOfCandidates((answer[0] as { candidates?: unknown }).candidates, q.plan.bound)
      : await countCandidates(db, ranked(), q.plan.bound)
    : counts!;
  const found = answer.map(({ candidates: _, ...row }: { candidates?: unknown } & (typeof answer)[number]) => row);
  const last = found.length > s.per_page ? found[s.per_page - 1] : undefined;
  const rows = found.slice(0, s.per_page).map(({ cursor_key: _, ...row }) => row);
  return { rows, ...total, next: last ? { sort: s.sort, key: last.cursor_key, id: last.id } : null };
}
