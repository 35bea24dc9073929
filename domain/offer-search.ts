/*
 * The vocabulary of the distribution offer search (docs/distribution-search.md): the centre of a
 * radius search, the sort, and the category rule, shared by the query schema and the data layer.
 */

/** A point on the earth, in degrees. */
export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** Default and largest search radius, in miles. */
export const DEFAULT_RADIUS_MILES = 25;
export const MAX_RADIUS_MILES = 500;
/** Largest N of recently_published / recently_updated / recently_closed, in days. */
export const MAX_RECENT_DAYS = 366;

/** Fields `sort_by` accepts; `distance` needs a centre (postal_code or coordinates), `relevance` a keyword query (`q`), best first. */
export const SORT_FIELDS = [
  'price',
  'value',
  'discount',
  'title',
  'start_date',
  'end_date',
  'published_at',
  'updated_at',
  'distance',
  'relevance',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export interface SortBy {
  field: SortField;
  direction: 'asc' | 'desc';
}

/**
 * How a sort field's key is carried in a search cursor (`after`, domain/search-cursor.ts), and the
 * Postgres type it is compared as.
 */
export type SortKeyKind = 'int8' | 'numeric' | 'text' | 'date' | 'timestamptz' | 'float8';

export const SORT_KEY_KINDS: Record<SortField, SortKeyKind> = {
  price: 'int8',
  value: 'int8',
  discount: 'numeric',
  title: 'text',
  start_date: 'date',
  end_date: 'date',
  published_at: 'timestamptz',
  updated_at: 'timestamptz',
  // The chord to the centre that orders a radius search (store/distribution-search.ts), not the miles shown.
  distance: 'float8',
  // A keyword search's relevance (with a centre, combined with the distance): store/distribution-keywords.ts.
  relevance: 'float8',
};

/**
 * Sort fields an offer may lack (no price, value or discount; not yet published): their offers come
 * last, so a page after a cursor with a key also reads those (the other fields are never null).
 */
export const NULLABLE_SORT_FIELDS: ReadonlySet<SortField> = new Set(['price', 'value', 'discount', 'published_at']);

/**
 * A position in a search's order (the keyset cursor, docs/distribution-search.md "Paging by
 * cursor"): the sort it is a position in, and its last offer's sort key (exact: `timestamptz` with its
 * microseconds as `YYYY-MM-DDTHH:MM:SS.ffffffZ`, `int8`/`numeric` as decimal text, `float8` as a
 * number; null when the offer has none) and id.
 */
export interface SearchCursor {
  sort: SortBy;
  key: string | number | null;
  id: string;
}

/**
 * A search counts its matches up to this many (docs/distribution-search.md, "total"): past it, `total`
 * is this bound and `total_relation` is `gte`, so no search reads every one of its matches to count them.
 * The bound of Elasticsearch's `track_total_hits`, for the same reason.
 */
export const SEARCH_TOTAL_BOUND = 10_000;

/** The sort when none is asked: most relevant first in a keyword search, nearest first in a radius search, else newest published first. */
export function defaultSort(radiusSearch: boolean, keywords = false): SortBy {
  if (keywords) return { field: 'relevance', direction: 'desc' };
  return radiusSearch ? { field: 'distance', direction: 'asc' } : { field: 'published_at', direction: 'desc' };
}

/** A node of the category tree, as far as matching needs it. */
export interface CategoryNode {
  id: number;
  parent_id: number | null;
}

/** The given category ids and all their descendants: a parent category matches its children. */
export function withDescendants(ids: readonly number[], tree: readonly CategoryNode[]): number[] {
  const result = new Set(ids);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of tree) {
      if (c.parent_id !== null && result.has(c.parent_id) && !result.has(c.id)) {
        result.add(c.id);
        grew = true;
      }
    }
  }
  return [...result];
}
