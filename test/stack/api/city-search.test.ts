import crypto from 'node:crypto';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/*
 * A city as the centre of a radius search (docs/distribution-search.md "City as the centre"), from
 * the packaged GeoNames gazetteer. Other test files share this database and a city centre is not a
 * filter, so each assertion looks for this file's offers among every page of results.
 */
describe('distribution search around a city', () => {
  let h: Harness;
  let distKey: string;
  let clientId: string;
  beforeAll(async () => {
    h = await createHarness();
    distKey = await h.key('distribution');
    clientId = (await h.client('submission')).clientId;
  });
  afterAll(() => h.close());

  const get = (query: string) => h.app.inject({ method: 'GET', url: `${DIST}/offers?${query}`, headers: { 'x-service-api-key': distKey } });
  type Hit = { id: string; distance?: number };
  /** Every offer the query finds, page by page. */
  const allHits = async (query: string) => {
    const found: Hit[] = [];
    for (let page = 1; page <= 50; page++) {
      const res = await get(`${query}&per_page=100&page=${page}`);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { offers: Hit[]; total: number };
      found.push(...body.offers);
      if (page * 100 >= body.total) break;
    }
    return found;
  };
  const ids = async (query: string) => (await allHits(query)).map((o) => o.id);
  /** An approved offer redeemable at one point (given coordinates, so only the radius places it). */
  const seedAtPoint = (latitude: number, longitude: number, state_code: string, country_code: string) => {
    const city = `Testville ${crypto.randomUUID().slice(0, 8)}`;
    return seedOffer(h, clientId, {
      advertiser: {
        name: 'City Search Co',
        categories: [{ id: 2 }],
        redemption_locations: [{ address_line_1: '1 Main St', city, state_code, country_code, latitude, longitude }],
      },
    } as never);
  };

  it("answers the spec's example: offers within the radius of San Francisco, nearest first, with their distance", async () => {
    const oakland = await seedAtPoint(37.8044, -122.2712, 'CA', 'US'); // about 8 miles from San Francisco
    const sanJose = await seedAtPoint(37.3382, -121.8863, 'CA', 'US'); // about 42 miles
    const hits = await allHits('city=san%20francisco&state_code=CA&radius=23');
    const found = hits.find((o) => o.id === oakland);
    expect(found?.distance).toBeGreaterThan(7);
    expect(found?.distance).toBeLessThan(10);
    expect(hits.map((o) => o.id)).not.toContain(sanJose);
    // Nearest first by default, as around any centre.
    const distances = hits.map((o) => o.distance ?? NaN);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(await ids('city=San+Francisco&state_code=ca&country_code=US&radius=50')).toEqual(expect.arrayContaining([oakland, sanJose]));
  });

  it('names the centre only: an offer across a state line within the radius is found', async () => {
    // Kansas City, Kansas, is about 3 miles from Kansas City, Missouri's centre.
    const kansas = await seedAtPoint(39.1141, -94.6275, 'KS', 'US');
    expect(await ids('city=Kansas+City&state_code=MO&radius=10')).toContain(kansas);
  });

  it('matches names without regard to case or accents, and tells same-named cities apart by state and country', async () => {
    const montreal = await seedAtPoint(45.5017, -73.5673, 'QC', 'CA');
    const portlandMaine = await seedAtPoint(43.6591, -70.2568, 'ME', 'US');
    const portlandOregon = await seedAtPoint(45.5152, -122.6784, 'OR', 'US');
    expect(await ids('city=MONTREAL&state_code=QC&radius=10')).toContain(montreal);
    expect(await ids('city=montr%C3%A9al&country_code=CA&radius=10')).toContain(montreal);
    // Montréal in France is another city: the offer in Quebec is not near it.
    expect(await ids('city=Montreal&country_code=FR&radius=10')).not.toContain(montreal);
    const maine = await ids('city=portland&state_code=ME&radius=10');
    expect(maine).toContain(portlandMaine);
    expect(maine).not.toContain(portlandOregon);
    // Still ambiguous (no state): the most populous Portland, Oregon's.
    const anyPortland = await ids('city=Portland&radius=10');
    expect(anyPortland).toContain(portlandOregon);
    expect(anyPortland).not.toContain(portlandMaine);
  });

  it('sorting by distance alone makes the city the centre, with the default radius', async () => {
    const oakland = await seedAtPoint(37.8044, -122.2712, 'CA', 'US');
    expect(await ids('city=San+Francisco&state_code=CA&sort_by=distance+asc')).toContain(oakland);
  });

  it('refuses an unknown city with 422 naming it, and a radius with neither a city nor a centre', async () => {
    const res = await get('city=Nowheresville+Flats&state_code=CA&radius=5');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'city' });
    expect(res.json().errors[0].message).toContain('Nowheresville Flats');
    // A real city, but not in that state.
    const wrongState = await get('city=San+Francisco&state_code=NY&radius=5');
    expect(wrongState.statusCode).toBe(422);
    expect(wrongState.json().errors[0].message).toMatch(/San Francisco.*state_code NY/);
    const noCentre = await get('state_code=CA&radius=5');
    expect(noCentre.statusCode).toBe(422);
    expect(noCentre.json().errors[0]).toMatchObject({ field: 'radius' });
  });
});
