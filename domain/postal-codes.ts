import type { Coordinates } from './offer-search';

/*
 * Postal codes as the search looks them up, and one line of a GeoNames postal-code file
 * (download.geonames.org/export/zip: tab-separated, UTF-8) as `admin postal-codes import` reads it.
 */

/** A postal code as stored and compared: trimmed, upper case, inner spaces collapsed (`sw1a  1aa` → `SW1A 1AA`). */
export function normalizePostalCode(code: string): string {
  return code.trim().toUpperCase().replace(/\s+/g, ' ');
}

/**
 * Where a postal code lies by the imported codes, given each country's centre of it: that centre
 * when one country has it; when several do (no country asked), which they are, for the caller to
 * ask; neither when none has it.
 */
export function importedPostalCentre(byCountry: ReadonlyArray<Coordinates & { country_code: string }>): {
  centre?: Coordinates;
  countries?: string[];
} {
  if (byCountry.length === 1) return { centre: { latitude: byCountry[0].latitude, longitude: byCountry[0].longitude } };
  return byCountry.length ? { countries: byCountry.map((r) => r.country_code) } : {};
}

/** One place of a postal code, as imported (and stored: store/rows/postal-codes.ts adds when). */
export interface PostalCodeRecord {
  country_code: string;
  /** Trimmed, upper case, inner spaces collapsed to one (`SW1A 1AA`), as looked up. */
  postal_code: string;
  place_name: string;
  admin1_name: string | null;
  admin1_code: string | null;
  latitude: number;
  longitude: number;
  /** GeoNames' accuracy of the coordinates: 1 estimated, 4 geonameid, 6 centroid of addresses or shape; null when not given. */
  accuracy: number | null;
}

/** The 12 columns of a GeoNames postal-code line, in order. */
const COLUMNS = 12;
const number = (s: string) => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : NaN);
/**
 * A coordinate kept to 6 decimals (about 0.1 m; GeoNames writes 4): a value nearer zero than that
 * becomes 0, as schemas/common.ts `coordinate()` requires, since the search's point index cannot
 * hold tinier ones.
 */
const coordinate = (s: string) => {
  const n = number(s);
  return Number.isNaN(n) ? n : Number(n.toFixed(6)) + 0; // + 0: no -0
};
const orNull = (s: string) => (s.trim() === '' ? null : s.trim());

/**
 * A GeoNames postal-code line (country code, postal code, place name, admin1 name, admin1 code,
 * admin2 name, admin2 code, admin3 name, admin3 code, latitude, longitude, accuracy), or why it is
 * malformed. Admin2 and admin3 are not kept: the search needs the point only.
 */
export function parseGeoNamesPostalLine(line: string): { record: PostalCodeRecord } | { error: string } {
  const f = line.replace(/\r$/, '').split('\t');
  if (f.length !== COLUMNS) return { error: `expected ${COLUMNS} tab-separated columns, found ${f.length}` };
  const [country, code, place, admin1Name, admin1Code, , , , , lat, lng, accuracy] = f;
  if (!/^[A-Z]{2}$/.test(country.trim())) return { error: `country code ${JSON.stringify(country)} is not two capital letters` };
  const postal = normalizePostalCode(code);
  if (postal === '' || postal.length > 20) return { error: `postal code ${JSON.stringify(code)} is empty or longer than 20 characters` };
  const latitude = coordinate(lat);
  const longitude = coordinate(lng);
  if (!(Math.abs(latitude) <= 90)) return { error: `latitude ${JSON.stringify(lat)} is not a number within ±90` };
  if (!(Math.abs(longitude) <= 180)) return { error: `longitude ${JSON.stringify(lng)} is not a number within ±180` };
  const acc = accuracy.trim() === '' ? null : number(accuracy);
  if (acc !== null && !(Number.isInteger(acc) && acc >= 0 && acc <= 100))
    return { error: `accuracy ${JSON.stringify(accuracy)} is not a small integer` };
  return {
    record: {
      country_code: country.trim(),
      postal_code: postal,
      place_name: place.trim(),
      admin1_name: orNull(admin1Name),
      admin1_code: orNull(admin1Code),
      latitude,
      longitude,
      accuracy: acc,
    },
  };
}
