/** Which page of a list: `page` counts from 1 (docs/decisions.md: 25 a page by default, at most 100). */
export interface Page {
  page: number;
  per_page: number;
}

/** One page of a list and how many items the whole list holds. */
export interface Paged<T> {
  rows: T[];
  total: number;
}
