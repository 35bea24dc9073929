import { CategoryList, CategoryListQuery } from '../../../schemas/category';
import { listReply } from '../../../schemas/envelope';
import { listCategories } from '../../../services/categories';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Categories');

/** GET /categories on both interfaces: the tree offers' advertiser categories refer to. */
export const categoryRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    '/categories',
    op('listCategories', 'List the category tree', { querystring: CategoryListQuery, response: { 200: CategoryList } }),
    async (request) => listReply('categories', await listCategories(deps, request.query), request.query),
  );
};
