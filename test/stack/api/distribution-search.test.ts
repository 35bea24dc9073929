import crypto from 'node:crypto';
import { changeOfferStatus, saveOfferFields } from '../../../store/offers';
import { OfferInput } from '../../../schemas/offer';
import { DistributionOfferQuery } from '../../../schemas/distribution-offer';
import { offerSearch, searchCentre } from '../../../services/distribution-offers';
import { searchDistributionOffers } from '../../../store/distribution-search';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

const DAY = 86_400_000;

/*
 * Other test files share this database, so every assertion is scoped to offers made here: each
 * test gives its offers a city of its own (or collects every page and looks for its ids).
 */
describe('distribution offer search', () => {
  let h: Harness;
  let distKey: string;
  let clientId: string;
  beforeAll(async () => {
    h = await createHarness();
    distKey = await h.key('distribution');
    clientId = (await h.client('submission')).clientId;
  });
  afterAll(() => h.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: `${DIST}${url}`, headers: { 'x-service-api-key': distKey, ...headers } });
  const search = async (query: string) => {
    const res = await get(`/offers?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json() as { status: string; offers: Array<Record<string, any>>; page: number; per_page: number; total: number };
  };
  const ids = async (query: string) => (await search(query)).offers.map((o) => o.id as string);
  /** Every id the query finds, page by page (for filters other tests' offers also match). */
  const allIds = async (query: string) => {
    const found: string[] = [];
    for (let page = 1; page <= 50; page++) {
      const r = await search(`${query}&per_page=100&page=${page}`);
      found.push(...r.offers.map((o) => o.id));
      if (page * 100 >= r.total) break;
    }
    return found;
  };
  const expect422 = async (query: string, field: string) => {
    const res = await get(`/offers?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 'ERROR' });
    expect(res.json().errors.map((e: { field?: string }) => e.field)).toContain(field);
  };

  /** A city name no other test uses, and a redemption location there at a real postal code. */
  const uniqueCity = () => `Testville ${crypto.randomUUID().slice(0, 8)}`;
  const at = (city: string, postal_code = '10118', state_code = 'NY', country_code = 'US') => ({
    address_line_1: '1 Main St',
    city,
    state_code,
    postal_code,
    country_code,
  });
  const seedAt = (
    city: string,
    overrides: Record<string, unknown> = {},
    location = at(city),
    status?: 'pending' | 'approved' | 'suspended' | 'cancelled',
  ) =>
    seedOffer(
      h,
      clientId,
      {
        advertiser: {
          name: 'Search Test Co',
          categories: [{ id: 2 }],
          redemption_locations: [location],
          ...(overrides.advertiser as object),
        },
        ...withoutAdvertiser(overrides),
      },
      status,
    );
  const withoutAdvertiser = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'advertiser'));
  const setColumns = (id: string, values: Record<string, unknown>) =>
    h.services.db
      .updateTable('offers')
      .set(values as never)
      .where('id', '=', id)
      .execute();

  describe('radius search', () => {
    let city: string;
    let nyc: string;
    let la: string;
    let boston: string;
    beforeAll(async () => {
      city = uniqueCity();
      nyc = await seedAt(city, {}, at(city, '10118', 'NY'));
      la = await seedAt(city, {}, at(city, '90210', 'CA'));
      boston = await seedAt(city, {}, at(city, '02108', 'MA'));
    });

    it('finds offers within the radius of a postal code, with their distance', async () => {
      const r = await search(`postal_code=10001&radius=10&city=${encodeURIComponent(city)}`);
      expect(r.offers.map((o) => o.id)).toEqual([nyc]);
      expect(r.total).toBe(1);
      expect(r.offers[0].distance).toBeGreaterThan(0);
      expect(r.offers[0].distance).toBeLessThan(1);
    });

    it('misses offers outside the radius, and widens with it', async () => {
      // Philadelphia is about 80 miles from midtown Manhattan.
      expect(await ids(`postal_code=19103&radius=25&city=${encodeURIComponent(city)}`)).toEqual([]);
      expect(await ids(`postal_code=19103&radius=100&city=${encodeURIComponent(city)}`)).toEqual([nyc]);
      // Boston is about 270 miles away, Beverly Hills about 2,400.
      expect(await ids(`postal_code=19103&radius=500&city=${encodeURIComponent(city)}&sort_by=distance+desc`)).toEqual([boston, nyc]);
      expect(await ids(`postal_code=19103&radius=500&city=${encodeURIComponent(city)}`)).toEqual([nyc, boston]);
    });

    it('uses a 25-mile radius by default', async () => {
      expect(await ids(`postal_code=10001&city=${encodeURIComponent(city)}`)).toEqual([nyc]);
      expect(await ids(`postal_code=19103&city=${encodeURIComponent(city)}`)).toEqual([]);
    });

    it('finds the same offers around lat/lng and latitude/longitude', async () => {
      expect(await ids(`lat=40.7484&lng=-73.9967&radius=5&city=${encodeURIComponent(city)}`)).toEqual([nyc]);
      expect(await ids(`latitude=34.09&longitude=-118.41&radius=5&city=${encodeURIComponent(city)}`)).toEqual([la]);
      expect(await ids(`latitude=47.6&longitude=-122.3&radius=50&city=${encodeURIComponent(city)}`)).toEqual([]);
      const all = await allIds('lat=40.7484&lng=-73.9967&radius=2');
      expect(all).toContain(nyc);
      expect(all).not.toContain(la);
    });

    it('refuses an unknown postal code and incomplete or conflicting centres with 422', async () => {
      await expect422('postal_code=00000', 'postal_code');
      await expect422('postal_code=ZZZZZ&radius=5', 'postal_code');
      await expect422('lat=40.7', 'lng');
      await expect422('longitude=-73.9', 'latitude');
      await expect422('lat=40.7&lng=-73.9&latitude=40.7&longitude=-73.9', 'latitude');
      await expect422('postal_code=10001&lat=40.7&lng=-73.9', 'postal_code');
      await expect422('radius=10', 'radius');
      await expect422('postal_code=10001&radius=0', 'radius');
      await expect422('postal_code=10001&radius=100000', 'radius');
      await expect422('lat=91&lng=0', 'lat');
      await expect422('lat=&lng=', 'lat');
      await expect422('postal_code=10001&radius=', 'radius');
      await expect422('postal_code=10001&radius=ten', 'radius');
    });
  });

  describe('place filters', () => {
    it('filters by city, case-insensitively', async () => {
      const city = uniqueCity();
      const a = await seedAt(city);
      await seedAt(uniqueCity());
      expect(await ids(`city=${encodeURIComponent(city.toUpperCase())}`)).toEqual([a]);
    });

    it('filters by state_code', async () => {
      const city = uniqueCity();
      const wy = await seedAt(city, {}, at(city, '82001', 'WY'));
      const ny = await seedAt(city, {}, at(city, '10118', 'NY'));
      expect(await ids(`state_code=wy&city=${encodeURIComponent(city)}`)).toEqual([wy]);
      const all = await allIds('state_code=WY');
      expect(all).toContain(wy);
      expect(all).not.toContain(ny);
    });

    it('country_code alone gives nationwide offers: country-wide locations and offers with none', async () => {
      const countryWide = await seedAt('', {}, { country_code: 'US' } as never);
      const anywhere = await seedOffer(h, clientId, { advertiser: { name: 'Online Co', categories: [], redemption_locations: [] } });
      const local = await seedAt(uniqueCity());
      const us = await allIds('country_code=us');
      expect(us).toEqual(expect.arrayContaining([countryWide, anywhere]));
      expect(us).not.toContain(local);
      const ca = await allIds('country_code=CA');
      expect(ca).toContain(anywhere);
      expect(ca).not.toContain(countryWide);
      await expect422('country_code=USA', 'country_code');
    });

    it('an edit that moves the locations of an offer moves it in or out of the nationwide results', async () => {
      const city = uniqueCity();
      const offerId = await seedAt('', {}, { country_code: 'US' } as never);
      expect(await allIds('country_code=US')).toContain(offerId);
      const edit = (locations: object[]) =>
        saveOfferFields(h.services.db, {
          key: `test:${offerId}:${crypto.randomUUID()}`,
          offerId,
          input: OfferInput.parse(
            validOffer({ advertiser: { name: 'Search Test Co', categories: [{ id: 2 }], redemption_locations: locations } }),
          ),
          changedFields: ['advertiser'],
        });
      await edit([at(city)]);
      expect(await allIds('country_code=US')).not.toContain(offerId);
      expect(await ids(`city=${encodeURIComponent(city)}`)).toEqual([offerId]);
      await edit([]);
      expect(await allIds('country_code=CA')).toContain(offerId);
    });

    it('finds a location placed by its coordinates, outside the US and Canada, around that point', async () => {
      const city = uniqueCity();
      const berlin = await seedAt(city, {}, {
        city,
        postal_code: '10115',
        country_code: 'DE',
        latitude: 52.532,
        longitude: 13.3849,
      } as never);
      // Potsdam is about 16 miles away; Munich about 310.
      const near = await search(`lat=52.3906&lng=13.0645&radius=25&city=${encodeURIComponent(city)}`);
      expect(near.offers.map((o) => o.id)).toEqual([berlin]);
      expect(near.offers[0].distance).toBeGreaterThan(14);
      expect(near.offers[0].distance).toBeLessThan(18);
      expect(near.offers[0].advertiser.redemption_locations[0]).toMatchObject({ latitude: 52.532, longitude: 13.3849 });
      expect(await ids(`latitude=48.1372&longitude=11.5756&radius=100&city=${encodeURIComponent(city)}`)).toEqual([]);
      expect(await ids(`latitude=48.1372&longitude=11.5756&radius=350&country_code=DE&city=${encodeURIComponent(city)}`)).toEqual([berlin]);
      // A German postal code is not the US ZIP code of the same digits (New York's 10115).
      expect(await ids(`postal_code=10115&radius=5&city=${encodeURIComponent(city)}`)).toEqual([]);
      await expect422('postal_code=10115&country_code=DE', 'postal_code');
    });

    it('given coordinates win over the postal code, and make a country-only location one place, not nationwide', async () => {
      const city = uniqueCity();
      // A New York ZIP code with Los Angeles coordinates: the advertiser's point is the one searched.
      const placed = await seedAt(city, {}, { ...at(city, '10118', 'NY'), latitude: 34.0522, longitude: -118.2437 } as never);
      expect(await ids(`postal_code=90012&radius=10&city=${encodeURIComponent(city)}`)).toEqual([placed]);
      expect(await ids(`postal_code=10001&radius=10&city=${encodeURIComponent(city)}`)).toEqual([]);
      const point = await seedAt('', {}, { country_code: 'US', latitude: 41.8781, longitude: -87.6298 } as never);
      expect(await allIds('country_code=US')).not.toContain(point);
      expect(await allIds('postal_code=60601&radius=5&country_code=US')).toContain(point);
    });

    it('country_code with a place narrows the place to that country', async () => {
      const city = uniqueCity();
      const a = await seedAt(city);
      expect(await ids(`country_code=US&city=${encodeURIComponent(city)}`)).toEqual([a]);
      expect(await ids(`country_code=CA&city=${encodeURIComponent(city)}`)).toEqual([]);
    });
  });

  it('filters by types, comma-separated or repeated', async () => {
    const city = uniqueCity();
    const deal = await seedAt(city);
    const coupon = await seedAt(city, { type: 'coupon', initial_quantity: undefined });
    const gift = await seedAt(city, { type: 'gift_card', discount: undefined });
    const q = `city=${encodeURIComponent(city)}&sort_by=title+asc`;
    expect((await ids(`${q}&types=coupon,gift_card`)).sort()).toEqual([coupon, gift].sort());
    expect((await ids(`${q}&types=coupon&types=deal`)).sort()).toEqual([coupon, deal].sort());
    expect(await ids(`${q}&types=deal`)).toEqual([deal]);
    await expect422(`${q}&types=voucher`, 'types');
    await expect422(`${q}&types=`, 'types');
  });

  describe('sorting', () => {
    let city: string;
    let cheap: string;
    let mid: string;
    let dear: string;
    beforeAll(async () => {
      city = uniqueCity();
      const priced = (amount: number, value: number, title: string, discount: number) =>
        seedAt(city, {
          title,
          price: { currency_code: 'USD', amount },
          value: { currency_code: 'USD', amount: value },
          discount: { type: 'percentage', percentage: discount },
        });
      cheap = await priced(1000, 9000, 'Bravo', 40);
      dear = await priced(3000, 4000, 'Alpha', 10);
      mid = await priced(2000, 2500, 'Charlie', 70);
    });
    const sorted = (sortBy: string) => ids(`city=${encodeURIComponent(city)}&sort_by=${sortBy}`);

    it('sorts by an allowed field in either direction', async () => {
      expect(await sorted('price+asc')).toEqual([cheap, mid, dear]);
      expect(await sorted('price%20desc')).toEqual([dear, mid, cheap]);
      expect(await sorted('price')).toEqual([cheap, mid, dear]);
      expect(await sorted('value+desc')).toEqual([cheap, dear, mid]);
      expect(await sorted('discount+desc')).toEqual([mid, cheap, dear]);
      expect(await sorted('title+asc')).toEqual([dear, cheap, mid]);
    });

    it('refuses any other sort with 422 naming sort_by', async () => {
      for (const bad of ['bogus+asc', 'price+sideways', 'price+asc+extra', 'price;drop+table+offers', "title'--"]) {
        await expect422(`city=${encodeURIComponent(city)}&sort_by=${encodeURIComponent(bad).replace(/%20/g, '+')}`, 'sort_by');
      }
      // Distance needs a centre; with a city, the city is the centre (test/stack/api/city-search.test.ts), here an unknown one.
      await expect422('state_code=NY&sort_by=distance+asc', 'sort_by');
      await expect422(`city=${encodeURIComponent(city)}&sort_by=distance+asc`, 'city');
    });
  });

  it('matches categories and category_ids, a parent category matching its children', async () => {
    const city = uniqueCity();
    const restaurant = await seedAt(city, { advertiser: { categories: [{ id: 2 }] } }); // Restaurants, under Food & Drink (1)
    const spa = await seedAt(city, { advertiser: { categories: [{ id: 11 }] } }); // Spas & Massage, under Health & Beauty (10)
    const q = `city=${encodeURIComponent(city)}`;
    expect(await ids(`${q}&categories=1`)).toEqual([restaurant]);
    expect(await ids(`${q}&category_ids=11`)).toEqual([spa]);
    expect((await ids(`${q}&categories=1,10`)).sort()).toEqual([restaurant, spa].sort());
    expect((await ids(`${q}&categories=2&category_ids=10`)).sort()).toEqual([restaurant, spa].sort());
    expect(await ids(`${q}&categories=30`)).toEqual([]);
    await expect422(`${q}&categories=999`, 'categories');
    await expect422(`${q}&category_ids=abc`, 'category_ids');
  });

  it('counts up to a bound: past it, the bound as a lower bound (total_relation gte)', async () => {
    const city = uniqueCity();
    for (let i = 0; i < 5; i++) await seedAt(city, { title: `Offer ${i}` });
    const q = DistributionOfferQuery.parse({ city, sort_by: 'title asc', per_page: '2' });
    const run = (totalBound: number, page = 1) =>
      searchDistributionOffers(h.services.db, { ...offerSearch({ ...q, page }, [], new Date(), 'cli_any'), totalBound });
    expect(await run(3)).toMatchObject({ total: 3, total_relation: 'gte' });
    expect(await run(4)).toMatchObject({ total: 4, total_relation: 'gte' });
    expect(await run(5)).toMatchObject({ total: 5, total_relation: 'eq' });
    // The pages past the bound are still there: paging goes on until a page comes back short.
    expect((await run(3, 3)).rows.map((r) => (r.document as { title: string }).title)).toEqual(['Offer 4']);
    expect(await search(`city=${encodeURIComponent(city)}`)).toMatchObject({ total: 5, total_relation: 'eq' });
  });

  it('finds and counts an offer with several locations in the circle or the place once, at its nearest', async () => {
    const city = uniqueCity();
    // Two locations in the city and the circle around 10118 (one at 10001, about a mile away), and a single-location offer.
    const twice = await seedAt(city, { title: 'Twice', advertiser: { redemption_locations: [at(city, '10001'), at(city, '10118')] } });
    const once = await seedAt(city, { title: 'Once' }, at(city, '10118'));
    const near = `postal_code=10118&radius=5&city=${encodeURIComponent(city)}`;
    for (const sort of ['distance+asc', 'price+asc', 'title+desc']) {
      const r = await search(`${near}&sort_by=${sort}`);
      expect(r.offers.map((o) => o.id).sort()).toEqual([twice, once].sort());
      expect(r).toMatchObject({ total: 2, total_relation: 'eq' });
      expect(r.offers.find((o) => o.id === twice)!.distance).toBe(0);
    }
    expect(await search(`city=${encodeURIComponent(city)}`)).toMatchObject({ total: 2, total_relation: 'eq' });
    // With a bound of 1 the first rows read may be one offer twice: the count falls back to one row per offer.
    for (const qs of [near, `city=${encodeURIComponent(city)}`]) {
      const q = DistributionOfferQuery.parse(Object.fromEntries(new URLSearchParams(qs)));
      const { centre } = await searchCentre(h.services, q);
      for (const totalBound of [1, 2])
        expect(
          await searchDistributionOffers(h.services.db, { ...offerSearch(q, [], new Date(), 'cli_any', centre), totalBound }),
        ).toMatchObject({ total: totalBound, total_relation: totalBound < 2 ? 'gte' : 'eq' });
    }
  });

  it('pages with page, per_page and total', async () => {
    const city = uniqueCity();
    const made = new Set<string>();
    for (let i = 0; i < 5; i++) made.add(await seedAt(city, { title: `Offer ${i}` }));
    const q = `city=${encodeURIComponent(city)}&sort_by=title+asc`;
    const pages = [await search(`${q}&per_page=2&page=1`), await search(`${q}&per_page=2&page=2`), await search(`${q}&per_page=2&page=3`)];
    expect(pages.map((p) => p.offers.length)).toEqual([2, 2, 1]);
    for (const [i, p] of pages.entries())
      expect(p).toMatchObject({ status: 'OK', page: i + 1, per_page: 2, total: 5, total_relation: 'eq' });
    const seen = pages.flatMap((p) => p.offers.map((o) => o.id));
    expect(new Set(seen)).toEqual(made);
    expect(seen.map((_, i) => `Offer ${i}`)).toEqual(pages.flatMap((p) => p.offers.map((o) => o.title)));
    expect(await search(`${q}&per_page=2&page=4`)).toMatchObject({ offers: [], total: 5 });
    expect((await search(q)).per_page).toBe(25);
    await expect422(`${q}&per_page=101`, 'per_page');
    await expect422(`${q}&page=0`, 'page');
  });

  it('shows only approved or resumed offers on sale today and in stock; GET /offers/:id is 404 for the rest', async () => {
    const city = uniqueCity();
    const approved = await seedAt(city);
    const resumed = await seedAt(city);
    await changeOfferStatus(h.services.db, { key: `t:${resumed}:suspend`, offerId: resumed, to: 'suspended', actor: 'advertiser' });
    await changeOfferStatus(h.services.db, { key: `t:${resumed}:resume`, offerId: resumed, to: 'resumed', actor: 'advertiser' });
    const unlimited = await seedAt(city, { type: 'coupon', initial_quantity: undefined });
    const pending = await seedAt(city, {}, at(city), 'pending');
    const suspended = await seedAt(city, {}, at(city), 'suspended');
    const cancelled = await seedAt(city, {}, at(city), 'cancelled');
    const soldOut = await seedAt(city);
    await setColumns(soldOut, { quantity_in_stock: 0 });
    const ended = await seedAt(city, { start_date: '2025-01-01', end_date: '2025-12-31', vouchers_expire: { on: '2026-06-30' } });
    const notStarted = await seedAt(city, { start_date: '2099-01-01', end_date: '2099-12-31' });

    const visible = [approved, resumed, unlimited];
    expect((await ids(`city=${encodeURIComponent(city)}`)).sort()).toEqual(visible.sort());
    for (const id of visible) {
      const res = await get(`/offers/${id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'OK', offer: { id, closed_at: null } });
    }
    expect((await get(`/offers/${unlimited}`)).json().offer.quantity_in_stock).toBeNull();
    expect((await get(`/offers/${resumed}`)).json().offer.status).toBe('resumed');
    for (const id of [pending, suspended, cancelled, soldOut, ended, notStarted, 'ofr_nope']) {
      const res = await get(`/offers/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'not_found' }] });
    }
  });

  it('recently_published, recently_updated and recently_closed return what changed in the last N days', async () => {
    const city = uniqueCity();
    const now = Date.now();
    const old = await seedAt(city);
    await setColumns(old, { published_at: new Date(now - 10 * DAY), updated_at: new Date(now - 10 * DAY) });
    const republished = await seedAt(city); // published long ago, edited yesterday
    await setColumns(republished, { published_at: new Date(now - 40 * DAY), updated_at: new Date(now - DAY) });
    const fresh = await seedAt(city);
    const closedRecently = await seedAt(city);
    await setColumns(closedRecently, {
      status: 'closed',
      closed_at: new Date(now - 2 * DAY),
      updated_at: new Date(now - 2 * DAY),
      published_at: new Date(now - 30 * DAY),
    });
    const closedLongAgo = await seedAt(city);
    await setColumns(closedLongAgo, {
      status: 'closed',
      closed_at: new Date(now - 20 * DAY),
      updated_at: new Date(now - 20 * DAY),
      published_at: new Date(now - 30 * DAY),
    });
    const cancelled = await seedAt(city, {}, at(city), 'cancelled'); // cancelled just now: ended for publishers
    const neverPublished = await seedAt(city, {}, at(city), 'pending');
    await setColumns(neverPublished, { status: 'cancelled' });

    const q = (extra: string) => ids(`city=${encodeURIComponent(city)}&${extra}`).then((r) => r.sort());
    expect(await q('recently_published=5')).toEqual([fresh].sort());
    expect(await q('recently_published=15')).toEqual([old, fresh].sort());
    expect(await q('recently_updated=5')).toEqual([republished, fresh].sort());
    expect(await q('recently_updated=15')).toEqual([old, republished, fresh].sort());
    expect(await q('recently_closed=5')).toEqual([closedRecently, cancelled].sort());
    expect(await q('recently_closed=30')).toEqual([closedRecently, closedLongAgo, cancelled].sort());
    expect(await q('recently_updated=5&recently_closed=5')).toEqual([republished, fresh, closedRecently, cancelled].sort());

    const closed = (await search(`city=${encodeURIComponent(city)}&recently_closed=5`)).offers.find((o) => o.id === closedRecently)!;
    expect(closed.status).toBe('closed');
    expect(Date.parse(closed.closed_at)).toBeCloseTo(now - 2 * DAY, -4);
    // Closed offers appear in recently_closed only: never in a plain search or by id.
    expect(await q('sort_by=title')).toEqual([old, republished, fresh].sort());
    expect((await get(`/offers/${closedRecently}`)).statusCode).toBe(404);
    await expect422('recently_closed=0', 'recently_closed');
    await expect422('recently_updated=x', 'recently_updated');
  });

  it('shows the distribution representation: sku and revenues, no submission-only fields', async () => {
    const city = uniqueCity();
    const id = await seedAt(city, {
      // Not exclusive now (its `until` has begun): an offer exclusive to others is not found at all (offer-exclusivity.test.ts).
      exclusivity: { exclusive: true, channels: ['x'], until: '2020-01-01' },
      advertiser_rebate: { currency_code: 'USD', amount: 100 },
      custom_attributes: [{ name: 'secret', value: 'internal' }],
    });
    const offer = (await get(`/offers/${id}`)).json().offer;
    for (const field of [
      'exclusivity',
      'initial_quantity',
      'reserved_quantity',
      'vouchers',
      'advertiser_rebate',
      'custom_attributes',
      'submitted_at',
      'reviewed_at',
      'rejection_reason',
      'created_at',
    ]) {
      expect(offer).not.toHaveProperty(field);
    }
    expect(JSON.stringify(offer)).not.toContain('internal');
    expect(offer).toMatchObject({
      id,
      sku: `OM-${id.slice(4)}`,
      title: 'Two-course dinner for two',
      type: 'deal',
      status: 'approved',
      price: { currency_code: 'USD', amount: 4500 },
      value: { currency_code: 'USD', amount: 9000 },
      discount: { type: 'percentage', percentage: 50 },
      start_date: '2026-01-01',
      end_date: '2099-12-31',
      vouchers_expire: { on: '2099-12-31' },
      quantity_in_stock: 100,
      creative: { headlines: ['Dinner for two', 'Half price'], original_media: [] },
      advertiser: { name: 'Search Test Co', categories: [{ id: 2 }], redemption_locations: [at(city)] },
      // 20% of the price to the distributor, half of that to its account (the defaults).
      distributor_revenue: { currency_code: 'USD', amount: 900 },
      account_revenue: { currency_code: 'USD', amount: 450 },
      closed_at: null,
    });
    expect(offer.advertiser.id).toMatch(/^adv_/);
    expect(Date.parse(offer.published_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(offer.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    const listed = (await search(`city=${encodeURIComponent(city)}`)).offers[0];
    expect(listed).toEqual(offer);
    expect(listed).not.toHaveProperty('distance');
  });

  it('answers an offer list in XML: lists as a wrapper of singular items', async () => {
    const city = uniqueCity();
    const a = await seedAt(city, { title: 'A' });
    const b = await seedAt(city, { title: 'B' });
    for (const res of [
      await get(`/offers.xml?city=${encodeURIComponent(city)}&sort_by=title+asc`),
      await get(`/offers?city=${encodeURIComponent(city)}&sort_by=title+asc`, { accept: 'application/xml' }),
    ]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/xml/);
      const body = res.body;
      expect(body).toMatch(/^<\?xml[^>]*><response><status>OK<\/status><offers><offer><id>/);
      expect((body.match(/<offer>/g) ?? []).length).toBe(2);
      expect(body.indexOf(`<id>${a}</id>`)).toBeLessThan(body.indexOf(`<id>${b}</id>`));
      expect(body).toContain('<headlines><headline>Dinner for two</headline><headline>Half price</headline></headlines>');
      expect(body).toContain('<categories><category><id>2</id></category></categories>');
      expect(body).toContain(`<redemption_locations><redemption_location><address_line_1>1 Main St</address_line_1><city>${city}</city>`);
      expect(body).toContain('<distributor_revenue><currency_code>USD</currency_code><amount>900</amount></distributor_revenue>');
      expect(body).toMatch(
        /<\/offers><page>1<\/page><per_page>25<\/per_page><total>2<\/total><total_relation>eq<\/total_relation><next_cursor\/><\/response>$/,
      );
    }
    const one = await get(`/offers/${a}.xml`);
    expect(one.body).toMatch(new RegExp(`^<\\?xml[^>]*><response><status>OK</status><offer><id>${a}</id><sku>OM-`));
    const err = await get('/offers.xml?sort_by=nope');
    expect(err.statusCode).toBe(422);
    expect(err.body).toContain('<field>sort_by</field>');
  });
});
