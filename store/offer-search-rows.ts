import type { Trx } from './db';
import type { OfferDocument } from '../domain/offer';
import { geocodeLocation } from '../platform/geodata';
import { locateImportedPostalCode } from './postal-codes';

/*
 * An offer's search rows: its redemption locations (offer_locations) and categories
 * (offer_categories), as the distribution search reads them (store/distribution-search.ts).
 * Rewritten whole, inside the offer's own write transaction (store/offers.ts).
 */

/**
 * A search row that no radius search can find: no point, and more than a country (a location
 * naming only its country is nationwide, found by `country_code`). Migration 0013 backfills with
 * the same rule in SQL.
 */
function unplaced(row: {
  latitude: number | null;
  country_code: string | null;
  postal_code: string | null;
  city: string | null;
  state_code: string | null;
}) {
  const countryOnly = row.country_code !== null && row.postal_code === null && row.city === null && row.state_code === null;
  return row.latitude === null && !countryOnly;
}

/**
 * The offer's redemption locations (placed: given coordinates, else geocoded) and categories, as
 * the search reads them, and on the offer row which locations could not be placed.
 */
export async function writeSearchRows(trx: Trx, offerId: string, input: OfferDocument) {
  await trx.deleteFrom('offer_locations').where('offer_id', '=', offerId).execute();
  await trx.deleteFrom('offer_categories').where('offer_id', '=', offerId).execute();
  const locations = [];
  for (const [position, loc] of input.advertiser.redemption_locations.entries()) {
    // After the packaged data, a postal code imported from a GeoNames file (admin postal-codes import).
    const geo =
      geocodeLocation(loc) ??
      (loc.postal_code ? (await locateImportedPostalCode(trx, loc.postal_code, loc.country_code)).centre : undefined);
    locations.push({
      offer_id: offerId,
      position,
      city: loc.city?.trim().toLowerCase() ?? null,
      state_code: loc.state_code?.trim().toUpperCase() ?? null,
      postal_code: loc.postal_code?.trim().toUpperCase() ?? null,
      country_code: loc.country_code ?? null,
      latitude: geo?.latitude ?? null,
      longitude: geo?.longitude ?? null,
    });
  }
  if (locations.length) await trx.insertInto('offer_locations').values(locations).execute();
  await trx
    .updateTable('offers')
    .set({ unplaced_locations: locations.filter(unplaced).map((l) => l.position) })
    .where('id', '=', offerId)
    .execute();
  const categoryIds = [...new Set(input.advertiser.categories.map((c) => c.id))];
  if (categoryIds.length)
    await trx
      .insertInto('offer_categories')
      .values(categoryIds.map((category_id) => ({ offer_id: offerId, category_id })))
      .execute();
}
