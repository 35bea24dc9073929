import { boundingBox, EARTH_RADIUS_MILES, earthBoxRadius } from '../../domain/search-geometry';
import { gathersCircle, keysetParts, planSearch, recentSince, type SearchFilters } from '../../domain/search-plan';
import { cursorFields, cursorOfFields } from '../../domain/search-cursor';
import type { SearchCursor, SortBy } from '../../domain/offer-search';

/* How the offer search is answered (domain/search-plan.ts, domain/search-geometry.ts), decided without a database. */

const NEWEST: SortBy = { field: 'published_at', direction: 'desc' };
const search = (over: Partial<SearchFilters> = {}): SearchFilters => ({ radius: 25, sort: NEWEST, ...over });
const centre = { latitude: 40.75, longitude: -74 };

describe('search plan', () => {
  it('normalizes the place as the search rows store it and counts up to the bound asked', () => {
    const plan = planSearch(search({ country_code: 'US', state_code: 'ny', city: 'New York', totalBound: 50 }));
    expect(plan.place).toEqual({ country: 'US', state: 'NY', city: 'new york' });
    expect(plan.bound).toBe(50);
    expect(planSearch(search()).bound).toBe(10_000);
  });

  it('without a centre pages the offers, counting a state or city from its locations and categories from their rows', () => {
    expect(planSearch(search())).toMatchObject({ count: 'offers', page: 'offers', fromSearchRows: true });
    expect(planSearch(search({ state_code: 'NY' }))).toMatchObject({ count: 'place-locations', page: 'offers' });
    expect(planSearch(search({ city: 'Austin', recently_updated: 3 }))).toMatchObject({ count: 'place-locations' });
    expect(planSearch(search({ categoryIds: [1, 2] }))).toMatchObject({ count: 'categories' });
    // The nationwide rule is on the offer row; recently_* needs the offer rows (offers that left the catalogue).
    expect(planSearch(search({ categoryIds: [1], country_code: 'US' })).count).toBe('offers');
    expect(planSearch(search({ categoryIds: [1], recently_closed: 2 }))).toMatchObject({ count: 'offers', fromSearchRows: false });
  });

  it('with a centre counts the circle and reads nearest first, the locations’ own sort key, or the offers in order', () => {
    const radius = (sort: SortBy, over: Partial<SearchFilters> = {}) => planSearch(search({ centre, sort, ...over }));
    expect(radius({ field: 'distance', direction: 'asc' })).toMatchObject({ count: 'circle', page: 'nearest' });
    expect(radius({ field: 'price', direction: 'desc' }).page).toBe('location-key');
    expect(radius(NEWEST).page).toBe('location-key');
    expect(radius({ field: 'title', direction: 'asc' }).page).toBe('offer-key');
    expect(radius(NEWEST, { recently_published: 7 }).page).toBe('offer-key');
  });

  it('gathers a circle the count read whole, and reads a fuller one in the sort’s order', () => {
    expect(gathersCircle({ total_relation: 'eq' })).toBe(true);
    expect(gathersCircle({ total_relation: 'gte' })).toBe(false);
  });

  it('counts recently_* back in whole days from now', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(recentSince({ recently_updated: 2, recently_closed: 1 }, now)).toEqual({
      published: undefined,
      updated: new Date('2026-11-25T12:00:00Z'),
      closed: new Date('2026-11-26T12:00:00Z'),
    });
  });

  it('reads the rows after a cursor in parts: the keyed ones, then those without a key where a key may be empty', () => {
    const at = (field: SortBy['field'], direction: SortBy['direction'], key: SearchCursor['key']): SearchCursor => ({
      sort: { field, direction },
      key,
      id: 'ofr_1',
    });
    expect(keysetParts(at('title', 'asc', 'Dinner'))).toEqual(['keyed-asc']);
    expect(keysetParts(at('end_date', 'desc', '2026-12-01'))).toEqual(['keyed-desc']);
    expect(keysetParts(at('price', 'asc', '4500'))).toEqual(['keyed-asc', 'unkeyed']);
    expect(keysetParts(at('published_at', 'desc', '2026-11-20T10:00:00.123456Z'))).toEqual(['keyed-desc', 'unkeyed']);
    expect(keysetParts(at('price', 'desc', null))).toEqual(['unkeyed-after']);
  });
});

describe('search geometry', () => {
  it('draws a box holding the circle’s northmost, southmost, eastmost and westmost points', () => {
    const miles = 25;
    const box = boundingBox(centre, miles);
    const dLat = (miles / EARTH_RADIUS_MILES) * (180 / Math.PI);
    // Due east on the sphere, the longitude a great circle reaches at this distance.
    const lat = (centre.latitude * Math.PI) / 180;
    const dLng = (Math.asin(Math.sin(miles / EARTH_RADIUS_MILES) / Math.cos(lat)) * 180) / Math.PI;
    expect(box.maxLat).toBeGreaterThanOrEqual(centre.latitude + dLat);
    expect(box.minLat).toBeLessThanOrEqual(centre.latitude - dLat);
    expect(box.maxLng).toBeGreaterThanOrEqual(centre.longitude + dLng);
    expect(box.minLng).toBeLessThanOrEqual(centre.longitude - dLng);
  });

  it('spans every longitude near a pole instead of dividing by nearly zero', () => {
    const box = boundingBox({ latitude: 89.99, longitude: 10 }, 500);
    expect(box.maxLng - box.minLng).toBe(360);
    expect(Number.isFinite(box.maxLat)).toBe(true);
  });

  it('asks the KNN index for a box a hair wider than the circle, in Earth radii', () => {
    expect(earthBoxRadius(EARTH_RADIUS_MILES)).toBeCloseTo(1.001, 12);
    expect(earthBoxRadius(25)).toBeGreaterThan(25 / EARTH_RADIUS_MILES);
  });
});

describe('search cursor fields', () => {
  it('reads back the fields it writes, and nothing made for another sort kind', () => {
    const cursor: SearchCursor = { sort: { field: 'price', direction: 'asc' }, key: '4500', id: 'ofr_1' };
    expect(cursorFields(cursor)).toEqual({ v: 1, s: 'price asc', k: '4500', i: 'ofr_1' });
    expect(cursorOfFields(cursorFields(cursor))).toEqual(cursor);
    expect(cursorOfFields({ ...cursorFields(cursor), k: 4500 })).toBeNull(); // an int8 key is decimal text
    expect(cursorOfFields({ ...cursorFields(cursor), s: 'title asc', k: null })).toBeNull(); // every offer has a title
  });
});
