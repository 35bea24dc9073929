/*
 * Naming places the way people type them (docs/distribution-search.md "City as the centre"): a
 * city's name matched without regard to case or accents, and the rule that picks one city among
 * several of that name.
 */

/** A city's name as compared: accents dropped (Montréal → montreal), lower case, spaces collapsed. */
export function placeKey(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * GeoNames numbers Canada's provinces (admin1 `08` is Ontario); people and the `zipcodes` data use
 * the postal abbreviations. The US admin1 codes already are the postal abbreviations (CA, NY).
 */
const CANADIAN_PROVINCES: Record<string, string> = {
  AB: '01',
  BC: '02',
  MB: '03',
  NB: '04',
  NL: '05',
  NS: '07',
  ON: '08',
  PE: '09',
  QC: '10',
  SK: '11',
  YT: '12',
  NT: '13',
  NU: '14',
};

/** A city of the gazetteer: its country, GeoNames admin1 code, population and centre. */
export interface GazetteerCity {
  name: string;
  country_code: string;
  admin1: string;
  population: number;
  latitude: number;
  longitude: number;
}

/** Whether `state_code` names the city's first-level division: its GeoNames admin1 code, or a Canadian province's abbreviation. */
function inState(city: GazetteerCity, stateCode: string): boolean {
  const code = stateCode.trim().toUpperCase();
  return city.admin1.toUpperCase() === code || (city.country_code === 'CA' && CANADIAN_PROVINCES[code] === city.admin1);
}

/**
 * The one city meant among those of a name: those in `state_code` and `country_code` when given,
 * and of them the most populous (a tie is broken the same way every time, by the gazetteer's order).
 */
export function pickCity(candidates: readonly GazetteerCity[], stateCode?: string, countryCode?: string): GazetteerCity | undefined {
  let best: GazetteerCity | undefined;
  for (const c of candidates) {
    if (countryCode && c.country_code !== countryCode.toUpperCase()) continue;
    if (stateCode && !inState(c, stateCode)) continue;
    if (!best || c.population > best.population) best = c;
  }
  return best;
}
