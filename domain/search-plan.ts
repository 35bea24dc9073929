import { DAY_MS } from './dates';
import type { KeywordQuery } from './keyword-search';
import { NULLABLE_SORT_FIELDS, SEARCH_TOTAL_BOUND, type Coordinates, type SearchCursor, type SortBy, type SortField } from './offer-search';

/*
 * How the offer search is answered (docs/distribution-search-design.md):
 * from a search's filters, which rows its count and its page read and in which order; where a
 * page after a cursor starts. The data layer (store/distribution-search.ts) states each choice
 * in SQL; the choices are made here, without a database.
 */

/** A search's filters as the service resolved them (the centre, the categories with their descendants, the sort). */
export interface SearchFilters {
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
  /** The words of `q`, resolved (a keyword search; store/distribution-keywords.ts). */
  keywords?: KeywordQuery;
  sort: SortBy;
  /** Count matches up to this many (default SEARCH_TOTAL_BOUND; tests set a small one). */
  totalBound?: number;
}

/** A place filter normalized as the search rows store it (store/offer-search-rows.ts): state upper case, city lower case. */
export interface Place {
  country?: string;
  state?: string;
  city?: string;
}

/**
 * What the total is counted from, each offer once: the offers (`offers`); the locations in the
 * state or city, each offer at its first one there (`place-locations`); the rows of the asked
 * categories, at the first asked one (`categories`); the locations in the circle, at the nearest
 * (`circle`); the search documents matching a keyword search's words (`keywords`).
 */
export type CountFrom = 'offers' | 'place-locations' | 'categories' | 'circle' | 'keywords';

/**
 * The order a page is read in: the offers in the sort's index order (`offers`); the locations
 * nearest first (`nearest`, the KNN index); the locations in the circle in their own copy of the
 * sort key (`location-key`); the offers in the circle in the sort's order (`offer-key`); the
 * matches of a keyword search, ranked (`relevance`: no index order, every match is ranked).
 */
export type PageFrom = 'offers' | 'nearest' | 'location-key' | 'offer-key' | 'relevance';

export interface SearchPlan {
  place: Place;
  /** Matches counted up to this many. */
  bound: number;
  /** Whether the search rows' copies of their offers' values answer every filter (no offer row is read to filter). */
  fromSearchRows: boolean;
  count: CountFrom;
  page: PageFrom;
}

/** The sort keys a location row carries a copy of (migration 0037): a radius search sorted by one reads the locations in that order. */
export const LOCATION_SORT_FIELDS = ['price', 'published_at'] as const satisfies readonly SortField[];
export type LocationSortField = (typeof LOCATION_SORT_FIELDS)[number];
const sortsByLocations = (field: SortField): field is LocationSortField => (LOCATION_SORT_FIELDS as readonly SortField[]).includes(field);

/**
 * How to answer this search. Without recently_* it is of offers on sale, which their search rows
 * alone answer; with them (the catalogue sync, which must see offers that left) the offer rows are
 * read. A radius search counts the circle; without a centre a state or city counts its locations,
 * and categories alone count their category rows, not every offer probed in the sort's order.
 */
export function planSearch(s: SearchFilters): SearchPlan {
  const place: Place = { country: s.country_code, state: s.state_code?.toUpperCase(), city: s.city?.toLowerCase() };
  const bound = s.totalBound ?? SEARCH_TOTAL_BOUND;
  const fromSearchRows = !s.recently_published && !s.recently_updated && !s.recently_closed;
  // Keywords by relevance: the search documents, whatever else the search names (with a centre, joined to the circle).
  if (s.keywords && s.sort.field === 'relevance') return { place, bound, fromSearchRows, count: 'keywords', page: 'relevance' };
  if (s.centre) {
    const page: PageFrom =
      s.sort.field === 'distance' ? 'nearest' : fromSearchRows && sortsByLocations(s.sort.field) ? 'location-key' : 'offer-key';
    return { place, bound, fromSearchRows, count: 'circle', page };
  }
  const count: CountFrom =
    place.state || place.city ? 'place-locations' : fromSearchRows && s.categoryIds && !place.country ? 'categories' : 'offers';
  return { place, bound, fromSearchRows, count, page: 'offers' };
}

/**
 * Whether a radius search sorted by other than distance gathers its circle and sorts it: when the
 * count found at most the bound's matches (it has read them already). A fuller circle is read in
 * the sort's order instead, the circle a filter, until the page is full.
 */
export function gathersCircle(total: { total_relation: 'eq' | 'gte' }): boolean {
  return total.total_relation === 'eq';
}

/** The instants `recently_*` count back from `now`, for those the search names. */
export function recentSince(
  s: Pick<SearchFilters, 'recently_published' | 'recently_updated' | 'recently_closed'>,
  now: Date,
): { published?: Date; updated?: Date; closed?: Date } {
  const since = (days: number | undefined) => (days ? new Date(now.getTime() - days * DAY_MS) : undefined);
  return { published: since(s.recently_published), updated: since(s.recently_updated), closed: since(s.recently_closed) };
}

/**
 * One part of the keyset condition after a cursor with key `k` and id `i` (docs/distribution-search.md
 * "Paging by cursor"), each read apart so it can walk an index in its order:
 * - `keyed-asc`: `(key, id) > (k, i)`, the row comparison a btree on (key, id) starts at;
 * - `keyed-desc`: `key <= k and (key < k or id > i)`: ids ascend inside a descending key, which no
 *   row comparison says, so `key <= k` bounds the walk and the ties at `k` are filtered by id;
 * - `unkeyed`: every row without a key (those come last, whichever the direction);
 * - `unkeyed-after`: the rows without a key after `i`, when the cursor is among them already.
 */
export type KeysetPart = 'keyed-asc' | 'keyed-desc' | 'unkeyed' | 'unkeyed-after';

/** The parts of the rows after `after`: one, or for a sort key an offer may lack, the keyed rows after it and then every row without one. */
export function keysetParts(after: SearchCursor): KeysetPart[] {
  if (after.key === null) return ['unkeyed-after'];
  const keyed: KeysetPart = after.sort.direction === 'asc' ? 'keyed-asc' : 'keyed-desc';
  return NULLABLE_SORT_FIELDS.has(after.sort.field) ? [keyed, 'unkeyed'] : [keyed];
}
