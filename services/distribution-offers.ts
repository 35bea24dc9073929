import type { Readable } from 'node:stream';
import { findLiveAttachments } from '../store/attachments';
import { categoryTree } from '../store/categories';
import type { AttachmentRow, OfferRow } from '../store/database';
import { searchDistributionOffers, type OfferSearch } from '../store/distribution-search';
import { resolveKeywords, withNearbyEstimate } from '../store/distribution-keywords';
import { queryWords, type KeywordQuery } from '../domain/keyword-search';
import { findReadableOffer } from '../store/distribution-visibility';
import { findCityCentre, geocodePostalCode, PACKAGED_POSTAL_COUNTRIES } from '../platform/geodata';
import { importedPostalCountries, locateImportedPostalCode } from '../store/postal-codes';
import { utcDay } from '../domain/dates';
import { invalidField, notFound } from '../domain/failures';
import { revenueShares } from '../domain/money';
import {
  DEFAULT_RADIUS_MILES,
  defaultSort,
  withDescendants,
  type CategoryNode,
  type Coordinates,
  type SortBy,
} from '../domain/offer-search';
import type { CursorPaged } from '../domain/paging';
import { wantsCityCentre, type DistributionOffer, type DistributionOfferQuery } from '../schemas/distribution-offer';
import { toDistributionOffer, type MediaLinks } from '../schemas/distribution-offer-view';
import type { OfferInput } from '../schemas/offer';
import { decodeSearchCursor, encodeSearchCursor } from '../schemas/search-cursor';
import { sortName } from '../domain/search-cursor';
import type { ServiceDeps } from './deps';
import { readStored } from './attachments';

/*
 * The distribution interface's offers: the search and one visible offer, each shown with this
 * deployment's revenue shares (docs/distribution-offers.md).
 */

type Deps = Pick<ServiceDeps, 'db' | 'config'>;

const mediaIdsOf = (row: Pick<OfferRow, 'document'>) => ((row.document as OfferInput).creative.original_media ?? []).map((m) => m.id);

/** The live attachments behind these offers' media, for their URLs, types and sizes (one query per page). */
async function mediaLinks(deps: Deps, rows: readonly Pick<OfferRow, 'document'>[], base: string): Promise<MediaLinks> {
  const attachments = await findLiveAttachments(deps.db, rows.flatMap(mediaIdsOf));
  return { base, attachments: new Map(attachments.map((a) => [a.id, a])) };
}

/**
 * What a postal code as a centre refers to: the packaged data's (US and Canada), else an imported
 * code's; unknown → 422 naming the countries whose codes are known.
 */
async function postalCentre(deps: Deps, postalCode: string, countryCode?: string): Promise<Coordinates> {
  const packaged = geocodePostalCode(postalCode, countryCode);
  if (packaged) return packaged;
  const { centre, countries } = await locateImportedPostalCode(deps.db, postalCode, countryCode);
  if (centre) return centre;
  if (countries)
    throw invalidField(
      'postal_code',
      `postal_code ${JSON.stringify(postalCode)} exists in ${countries.join(', ')}: give country_code to say which`,
    );
  const known = [...PACKAGED_POSTAL_COUNTRIES, ...(await importedPostalCountries(deps.db))];
  const where = countryCode ? ` of ${countryCode}` : '';
  throw invalidField(
    'postal_code',
    `postal_code ${JSON.stringify(postalCode)} is not a known postal code${where}; postal codes are known for ${[...new Set(known)].join(', ')} (elsewhere, search by lat/lng)`,
  );
}

/** The city named as a centre (docs/distribution-search.md "City as the centre"); unknown → 422 naming it. */
function cityCentre(q: DistributionOfferQuery & { city: string }): Coordinates {
  const hit = findCityCentre(q.city, q.state_code, q.country_code);
  if (hit) return { latitude: hit.latitude, longitude: hit.longitude };
  const within = [q.state_code && `state_code ${q.state_code}`, q.country_code && `country_code ${q.country_code}`]
    .filter(Boolean)
    .join(', ');
  throw invalidField(
    'city',
    `city ${JSON.stringify(q.city)}${within ? ` (${within})` : ''} is not a known city (GeoNames cities of 1000 people or more)`,
  );
}

/**
 * The search centre, if any: a postal code (of `country_code` when given; refused when unknown),
 * coordinates, or, when the query asks for a radius search (`radius` or `sort_by=distance`) and
 * gives neither, the city named by `city`, `state_code` and `country_code`.
 */
export async function searchCentre(deps: Deps, q: DistributionOfferQuery): Promise<{ centre?: Coordinates; byCity: boolean }> {
  if (q.postal_code !== undefined) return { centre: await postalCentre(deps, q.postal_code, q.country_code), byCity: false };
  if (q.lat !== undefined && q.lng !== undefined) return { centre: { latitude: q.lat, longitude: q.lng }, byCity: false };
  if (q.latitude !== undefined && q.longitude !== undefined)
    return { centre: { latitude: q.latitude, longitude: q.longitude }, byCity: false };
  if (wantsCityCentre(q)) return { centre: cityCentre(q), byCity: true };
  return { byCity: false };
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

/**
 * The query as the data layer runs it, for this publisher (exclusive offers are open to their
 * channels only); `tree` is the category tree when the query names categories. A city centre's
 * `city` and `state_code` name the centre, not a filter: the radius decides (an offer across a
 * state line within the radius is found).
 */
export function offerSearch(
  q: DistributionOfferQuery,
  tree: readonly CategoryNode[],
  now: Date,
  clientId: string,
  centre?: Coordinates,
  byCity = false,
  keywords?: KeywordQuery,
): OfferSearch {
  const sort = q.sort_by ?? defaultSort(centre !== undefined, keywords !== undefined);
  return {
    page: q.page,
    per_page: q.per_page,
    centre,
    radius: q.radius ?? DEFAULT_RADIUS_MILES,
    country_code: q.country_code,
    state_code: byCity ? undefined : q.state_code,
    city: byCity ? undefined : q.city,
    types: q.types,
    categoryIds: expandCategories(q, tree),
    recently_published: q.recently_published,
    recently_updated: q.recently_updated,
    recently_closed: q.recently_closed,
    keywords,
    sort,
    after: q.after === undefined ? undefined : searchCursor(q.after, sort),
    today: utcDay(now),
    now,
    clientId,
  };
}

/**
 * The position `after` names (the schema has checked that it decodes), refused when it was made
 * for another sort than this search's (its key would mean something else).
 */
function searchCursor(after: string, sort: SortBy) {
  const cursor = decodeSearchCursor(after);
  if (!cursor) throw invalidField('after', 'after: is not a cursor of this search: send a next_cursor as it was given');
  if (sortName(cursor.sort) !== sortName(sort))
    throw invalidField(
      'after',
      `after: this cursor continues a search sorted by ${sortName(cursor.sort)}, and this one is sorted by ${sortName(sort)}: ` +
        'send it with the sort_by (and the other parameters) of the search it came from',
    );
  return cursor;
}

/**
 * One page of the offers on sale now that match the query, as this publisher sees them (none
 * exclusive to others); `base` is the interface's absolute address, for the media URLs.
 */
export async function searchOffers(
  deps: Deps,
  clientId: string,
  q: DistributionOfferQuery,
  base: string,
): Promise<CursorPaged<DistributionOffer>> {
  const now = new Date();
  const tree = q.categories || q.category_ids ? await categoryTree(deps.db) : [];
  const { centre, byCity } = await searchCentre(deps, q);
  const keywords = q.q === undefined ? undefined : await resolveKeywords(deps.db, queryWords(q.q));
  const search = await withNearbyEstimate(deps.db, offerSearch(q, tree, now, clientId, centre, byCity, keywords));
  const { rows, next, ...total } = await searchDistributionOffers(deps.db, search);
  const shares = revenueShares(deps.config);
  const media = await mediaLinks(deps, rows, base);
  return {
    rows: rows.map((r) => toDistributionOffer(r, shares, search.today, media)),
    ...total,
    next_cursor: next && encodeSearchCursor(next),
  };
}

/** An offer this client may read: on sale, or one it holds vouchers or a reservation of; else not found (as GET /offers/:id). */
export async function readableOffer(deps: Deps, clientId: string, offerId: string, today: string): Promise<OfferRow> {
  return (await findReadableOffer(deps.db, clientId, offerId, today)) ?? Promise.reject(notFound('offer'));
}

/**
 * One offer as this publisher may read it: on sale now, or (in whatever state, with its current
 * status and closed_at) one it has orders or reservations of. Not found otherwise.
 */
export async function getReadableOffer(deps: Deps, clientId: string, offerId: string, base: string): Promise<DistributionOffer> {
  const today = utcDay();
  const row = await readableOffer(deps, clientId, offerId, today);
  return toDistributionOffer(row, revenueShares(deps.config), today, await mediaLinks(deps, [row], base));
}

/**
 * One medium of an offer the client may read, and a stream of its bytes. Not found when the offer
 * is not readable, the id is not among its media, or the advertiser has deleted the file.
 */
export async function readOfferMedium(
  deps: Deps & Pick<ServiceDeps, 'store'>,
  clientId: string,
  offerId: string,
  mediumId: string,
): Promise<{ row: AttachmentRow; body: () => Promise<Readable> }> {
  const offer = await readableOffer(deps, clientId, offerId, utcDay());
  const [row] = mediaIdsOf(offer).includes(mediumId) ? await findLiveAttachments(deps.db, [mediumId]) : [];
  if (!row || row.client_id !== offer.client_id) throw notFound('medium');
  return { row, body: () => readStored(deps.store, row.object_key, () => notFound('medium content')) };
}
