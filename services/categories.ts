import { listCategories as listCategoryPage, type CategoryListing } from '../store/categories';
import type { Page, Paged } from '../domain/paging';
import type { ServiceDeps } from './deps';

/** One page of the category tree offers' advertiser categories refer to. */
export function listCategories(deps: Pick<ServiceDeps, 'db'>, page: Page): Promise<Paged<CategoryListing>> {
  return listCategoryPage(deps.db, page);
}
