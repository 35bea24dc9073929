import { z } from 'zod';
import { queryInt } from './common';

export const MAX_PER_PAGE = 100;
/** The last page anyone may ask for: a bound on the offset Postgres is asked to skip. */
export const MAX_PAGE = 100_000;

/** `page` counts from 1 (at most MAX_PAGE); `per_page` defaults to 25 and is capped at 100 (docs/decisions/0004-api-conventions.md). */
export const PageQuery = z.object({
  page: queryInt(1, MAX_PAGE, 1),
  per_page: queryInt(1, MAX_PER_PAGE, 25),
});
export type PageQuery = z.infer<typeof PageQuery>;
