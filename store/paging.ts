import { sql, type SelectQueryBuilder } from 'kysely';
import type { Page, Paged } from '../domain/paging';

/**
 * The one count-and-page block: `filtered` holds the list's conditions; `select` adds the
 * columns and the order. The page and the total are read in parallel.
 */
export async function pageOf<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Page,
  select: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
): Promise<Paged<O>> {
  const [rows, count] = await Promise.all([
    select(filtered)
      .limit(page.per_page)
      .offset((page.page - 1) * page.per_page)
      .execute(),
    filtered.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number((count as { n: number }).n) };
}
