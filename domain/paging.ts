/** Which page of a list: `page` counts from 1 (docs/decisions/0004-api-conventions.md: 25 a page by default, at most 100). */
export interface Page {
  page: number;
  per_page: number;
}

/** One page of a list and how many items the whole list holds. */
export interface Paged<T> {
  rows: T[];
  total: number;
}

/**
 * A page whose total is counted up to a bound (the offer search: SEARCH_TOTAL_BOUND in
 * domain/offer-search.ts). `eq`: `total` is the exact count; `gte`: the list holds at least `total`.
 */
export interface BoundedPaged<T> extends Paged<T> {
  total_relation: TotalRelation;
}

/**
 * A bounded page that also says where the next one starts (the offer search's keyset cursor,
 * docs/distribution-search.md "Paging by cursor"): null when no offer follows this page.
 */
export interface CursorPaged<T> extends BoundedPaged<T> {
  next_cursor: string | null;
}

/** How `total` relates to the number of items: exactly it, or at least it. */
export type TotalRelation = 'eq' | 'gte';
