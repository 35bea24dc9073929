import zipcodes from 'zipcodes';
import type { Location } from '../domain/offer';
import type { Coordinates } from '../domain/offer-search';

/** US ZIP codes and Canadian FSAs from the `zipcodes` package's data; undefined if unknown. */
export function geocodePostalCode(postalCode: string): Coordinates | undefined {
  const code = postalCode.trim().toUpperCase();
  const hit = zipcodes.lookup(
    /^\d{5}-\d{4}$/.test(code) ? code.slice(0, 5) : code.length === 6 && /^[A-Z]\d[A-Z]/.test(code) ? code.slice(0, 3) : code,
  );
  return hit ? { latitude: hit.latitude, longitude: hit.longitude } : undefined;
}

/** A redemption location's coordinates: by postal code, else by city and state. */
export function geocodeLocation(loc: Location): Coordinates | undefined {
  if (loc.postal_code) {
    const byCode = geocodePostalCode(loc.postal_code);
    if (byCode) return byCode;
  }
  if (loc.city && loc.state_code) {
    const [byName] = zipcodes.lookupByName(loc.city, loc.state_code);
    if (byName) return { latitude: byName.latitude, longitude: byName.longitude };
  }
  return undefined;
}
