import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listCategories } from '../../../store/categories';
import { CategoryList, CategoryListQuery } from '../../../schemas/category';
import type { ServiceDeps } from '../../../services/deps';

/** GET /categories on both interfaces: the tree offers' advertiser categories refer to. */
export const categoryRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get('/categories', { schema: { querystring: CategoryListQuery, response: { 200: CategoryList } } }, async (request) => {
    const { rows, total } = await listCategories(deps.db, request.query);
    return { status: 'OK' as const, categories: rows, page: request.query.page, per_page: request.query.per_page, total };
  });
};
