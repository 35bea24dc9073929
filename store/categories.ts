import type { Db } from './db';
import type { Page, Paged } from '../domain/paging';
import type { CategoryNode } from '../domain/offer-search';
import { pageOf } from './paging';

/** A category as GET /categories lists it: `parent` is `parent_id` under the spec's name. */
export interface CategoryListing {
  id: number;
  name: string;
  parent: number | null;
  parent_id: number | null;
}

/** One page of the category tree, by id. */
export async function listCategories(db: Db, page: Page): Promise<Paged<CategoryListing>> {
  const { rows, total } = await pageOf(db.selectFrom('categories'), page, (q) => q.select(['id', 'name', 'parent_id']).orderBy('id'));
  return { rows: rows.map((r) => ({ ...r, parent: r.parent_id })), total };
}

/** The ids among `ids` that are not categories, for 422s naming the bad one. */
export async function unknownCategoryIds(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('categories').select('id').where('id', 'in', ids).execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

/** Each database's category tree, read once: only migrations write categories. */
const trees = new WeakMap<Db, Promise<CategoryNode[]>>();

/**
 * The category tree, for matching a parent category's children. Read once per process and kept:
 * categories change only with a migration (which a restart follows), and a category search
 * otherwise paid a round trip for the same rows on every request. A failed read is not kept.
 */
export function categoryTree(db: Db): Promise<CategoryNode[]> {
  let tree = trees.get(db);
  if (!tree) {
    tree = db.selectFrom('categories').select(['id', 'parent_id']).execute();
    tree.catch(() => trees.delete(db));
    trees.set(db, tree);
  }
  return tree;
}

/** The names of these categories (unknown ids left out). */
export async function categoryNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('categories').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((c) => [c.id, c.name]));
}
