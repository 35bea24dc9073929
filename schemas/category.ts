import { z } from 'zod';
import { queryInt } from './common';
import { listEnvelope } from './envelope';
import { PageQuery } from './pagination';

/** A node of the seeded category tree; offers name categories by `id` in `advertiser.categories`. */
export const Category = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The parent category's id; null at the top of the tree. */
  parent: z.number().int().nullable(),
  /** The same id under the name the offers' filters use (`category_ids`); kept for clients that expect `_id` fields. */
  parent_id: z.number().int().nullable(),
});

export const CategoryListQuery = PageQuery.extend({
  per_page: queryInt(1, 500, 500),
});
export const CategoryList = listEnvelope('categories', Category);
