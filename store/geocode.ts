import type Zipcodes from 'zipcodes';
import type { RedemptionLocation } from '../domain/offer';
import type { Coordinates } from '../domain/offer-search';
import { normalizePostalCode } from '../domain/postal-codes';
import type { Db, Trx } from './db';
import { findImportedPostalCode } from './postal-codes';

let data: typeof Zipcodes | undefined;
/**
 * The `zipcodes` data, loaded on first use: loading it costs about half a second of CPU, which
 * `npm start` would otherwise spend before it answers (it calls this right after it is ready).
 */
export function zipcodes(): typeof Zipcodes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (data ??= require('zipcodes') as typeof Zipcodes);
}

/** The countries the `zipcodes` data covers, as it names them. */
const DATA_COUNTRY: Record<string, string> = { US: 'US', CA: 'Canada' };

/**
 * US ZIP codes and Canadian FSAs from the `zipcodes` package's data; undefined if unknown. With a
 * country, only a code of that country matches: German `10115` is not New York's ZIP code.
 */
export function geocodePostalCode(postalCode: string, countryCode?: string): Coordinates | undefined {
  const code = postalCode.trim().toUpperCase();
  const hit = zipcodes().lookup(
    /^\d{5}-\d{4}$/.test(code) ? code.slice(0, 5) : code.length === 6 && /^[A-Z]\d[A-Z]/.test(code) ? code.slice(0, 3) : code,
  );
  if (!hit || (countryCode && hit.country !== DATA_COUNTRY[countryCode])) return undefined;
  return { latitude: hit.latitude, longitude: hit.longitude };
}

/**
 * A redemption location's coordinates: those the advertiser gave (the schema allows both or
 * neither), else by postal code, else by city and state (US and Canada only: the data's extent).
 */
export function geocodeLocation(loc: RedemptionLocation): Coordinates | undefined {
  if (loc.latitude !== undefined && loc.longitude !== undefined) return { latitude: loc.latitude, longitude: loc.longitude };
  if (loc.country_code && !DATA_COUNTRY[loc.country_code]) return undefined;
  if (loc.postal_code) {
    const byCode = geocodePostalCode(loc.postal_code, loc.country_code);
    if (byCode) return byCode;
  }
  if (loc.city && loc.state_code) {
    const [byName] = zipcodes().lookupByName(loc.city, loc.state_code);
    if (byName) return { latitude: byName.latitude, longitude: byName.longitude };
  }
  return undefined;
}

/** The countries whose postal codes the packaged data knows. */
export const PACKAGED_POSTAL_COUNTRIES = Object.keys(DATA_COUNTRY);

/**
 * Where a postal code lies: the packaged `zipcodes` data first (US and Canada), then the codes
 * imported from GeoNames files (store/postal-codes.ts). `countries` lists the imported countries
 * that have the code when, without `countryCode`, more than one does (the caller asks which).
 */
export async function locatePostalCode(
  db: Db | Trx,
  postalCode: string,
  countryCode?: string,
): Promise<{ centre?: Coordinates; countries?: string[] }> {
  const packaged = geocodePostalCode(postalCode, countryCode);
  if (packaged) return { centre: packaged };
  const imported = await findImportedPostalCode(db, normalizePostalCode(postalCode), countryCode);
  if (imported.length === 1) return { centre: { latitude: imported[0].latitude, longitude: imported[0].longitude } };
  return imported.length ? { countries: imported.map((r) => r.country_code) } : {};
}
