import { categoryTree } from '../store/categories';
import { findVisibleOffer, searchDistributionOffers, type OfferSearch } from '../store/distribution-search';
import { geocodePostalCode } from '../store/geocode';
import { utcDay } from '../domain/dates';
import { invalidField, notFound } from '../domain/failures';
import { revenueShares } from '../domain/money';
import { DEFAULT_RADIUS_MILES, defaultSort, withDescendants, type CategoryNode, type Coordinates } from '../domain/offer-search';
import type { Paged } from '../domain/paging';
import type { DistributionOffer, DistributionOfferQuery } from '../schemas/distribution-offer';
import { toDistributionOffer } from '../schemas/distribution-offer-view';
import type { ServiceDeps } from './deps';

/*
 * The distribution interface's offers: the search and one visible offer, each shown with this
 * deployment's revenue shares (docs/distribution-search.md).
 */

type Deps = Pick<ServiceDeps, 'db' | 'config'>;

/** The search centre, if any: a postal code (refused when unknown) or coordinates. */
export function searchCentre(q: DistributionOfferQuery): Coordinates | undefined {
  if (q.postal_code !== undefined) {
    const c = geocodePostalCode(q.postal_code);
    if (!c) throw invalidField('postal_code', `postal_code ${JSON.stringify(q.postal_code)} is not a known postal code`);
    return c;
  }
  if (q.lat !== undefined && q.lng !== undefined) return { latitude: q.lat, longitude: q.lng };
  if (q.latitude !== undefined && q.longitude !== undefined) return { latitude: q.latitude, longitude: q.longitude };
  return undefined;
}

/** The asked ids (`categories` and `category_ids` merged) and all their descendants; an unknown id is refused naming its parameter. */
export function expandCategories(q: DistributionOfferQuery, tree: readonly CategoryNode[]): number[] | undefined {
  if (!q.categories && !q.category_ids) return undefined;
  const known = new Set(tree.map((c) => c.id));
  for (const field of ['categories', 'category_ids'] as const) {
    const bad = q[field]?.find((id) => !known.has(id));
    if (bad !== undefined) throw invalidField(field, `${field}: ${bad} is not a category id (see GET /categories)`);
  }
  return withDescendants([...(q.categories ?? []), ...(q.category_ids ?? [])], tree);
}

/** The query as the data layer runs it; `tree` is the category tree when the query names categories. */
export function offerSearch(q: DistributionOfferQuery, tree: readonly CategoryNode[], now: Date): OfferSearch {
  const centre = searchCentre(q);
  return {
    page: q.page,
    per_page: q.per_page,
    centre,
    radius: q.radius ?? DEFAULT_RADIUS_MILES,
    country_code: q.country_code,
    state_code: q.state_code,
    city: q.city,
    types: q.types,
    categoryIds: expandCategories(q, tree),
    recently_published: q.recently_published,
    recently_updated: q.recently_updated,
    recently_closed: q.recently_closed,
    sort: q.sort_by ?? defaultSort(centre !== undefined),
    today: utcDay(now),
    now,
  };
}

/** One page of the offers on sale now that match the query, as publishers see them. */
export async function searchOffers(deps: Deps, q: DistributionOfferQuery): Promise<Paged<DistributionOffer>> {
  const now = new Date();
  const tree = q.categories || q.category_ids ? await categoryTree(deps.db) : [];
  const search = offerSearch(q, tree, now);
  const { rows, total } = await searchDistributionOffers(deps.db, search);
  const shares = revenueShares(deps.config);
  return { rows: rows.map((r) => toDistributionOffer(r, shares, search.today)), total };
}

/** One offer a publisher may see now; not found for unknown or invisible ids. */
export async function getVisibleOffer(deps: Deps, offerId: string): Promise<DistributionOffer> {
  const today = utcDay();
  const row = await findVisibleOffer(deps.db, offerId, today);
  if (!row) throw notFound('offer');
  return toDistributionOffer(row, revenueShares(deps.config), today);
}
