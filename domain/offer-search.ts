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

/** Fields `sort_by` accepts; `distance` needs a centre (postal_code or coordinates). */
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
] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export interface SortBy {
  field: SortField;
  direction: 'asc' | 'desc';
}

/** The sort when none is asked: nearest first in a radius search, else newest published first. */
/**
 * A search counts its matches up to this many (docs/distribution-search.md, "total"): past it, `total`
 * is this bound and `total_relation` is `gte`, so no search reads every one of its matches to count them.
 * The bound of Elasticsearch's `track_total_hits`, for the same reason.
 */
export const SEARCH_TOTAL_BOUND = 10_000;

export function defaultSort(radiusSearch: boolean): SortBy {
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
