/**
 * Issue 24's query set (distribution `GET /offers`, 50 a page), plus the defaults (no filter: every
 * offer on sale, newest first). The first is the query of `search_100k_ratio`; the last, of
 * `search_growth_100k_1m`. Shared by the bench (bench/search.ts, bench/summary.ts) and the plans (bench/search-plans.ts).
 */
export const SEARCH_QUERIES = [
  'postal_code=10001&radius=25&sort_by=price+asc',
  'postal_code=10001&radius=25&categories=2',
  'categories=2',
  'state_code=CA',
  'postal_code=10001&radius=500',
  'country_code=US',
  'postal_code=10001',
  '',
];
