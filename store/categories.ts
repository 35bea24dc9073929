import type { Db } from './db';
import { pageBounds, type PageQuery } from '../schemas/pagination';

export async function listCategories(db: Db, page: PageQuery) {
  const { limit, offset } = pageBounds(page);
  const [rows, count] = await Promise.all([
    db.selectFrom('categories').select(['id', 'name', 'parent_id']).orderBy('id').limit(limit).offset(offset).execute(),
    db
      .selectFrom('categories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...r, parent: r.parent_id })), total: count.n };
}

/** The ids among `ids` that are not categories, for 422s naming the bad one. */
export async function unknownCategoryIds(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('categories').select('id').where('id', 'in', ids).execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}
