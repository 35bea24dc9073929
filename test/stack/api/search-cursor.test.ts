import crypto from 'node:crypto';
import { sql } from 'kysely';
import { DistributionOfferQuery } from '../../../schemas/distribution-offer';
import { decodeSearchCursor, encodeSearchCursor } from '../../../schemas/search-cursor';
import { offerSearch, searchCentre } from '../../../services/distribution-offers';
import { searchDistributionOffers, type OfferSearch } from '../../../store/distribution-search';
import { SORT_FIELDS } from '../../../domain/offer-search';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

const DAY = 86_400_000;

interface SearchPage {
  offers: Array<{ id: string } & Record<string, unknown>>;
  page: number;
  per_page: number;
  total: number;
  total_relation: string;
  next_cursor: string | null;
}

/*
 * Paging the distribution search by cursor (docs/distribution-search.md "Paging by cursor"): walking
 * every page by `next_cursor` returns each match exactly once, in the order one page holding them
 * all shows, for every sort (ties in every key, offers without one, timestamps a microsecond apart),
 * in a city, around a centre and in a sync by recently_updated; and bad cursors are refused (422).
 *
 * Other test files share the database: these offers are in a city of their own, around a centre in
 * the South Atlantic (chosen at random) where no other test places anything.
 */
describe('distribution search: paging by cursor', () => {
  let h: Harness;
  let distKey: string;
  let clientId: string;
  const city = `Cursorville ${crypto.randomUUID().slice(0, 8)}`;
  const centre = { latitude: -40 + Math.random() * 5, longitude: -20 + Math.random() * 5 };
  const near = `lat=${centre.latitude.toFixed(6)}&lng=${centre.longitude.toFixed(6)}&radius=40`;
  /** Visible offers of this catalogue, and the ones a sync of the last day reports (closed too). */
  const visible = new Set<string>();
  const changedToday = new Set<string>();
  /** A visible offer with no point (not in the circle), unchanged for ten days (not in a sync). */
  let old = '';

  const get = (url: string, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: `${DIST}${url}`, headers: { 'x-service-api-key': distKey, ...headers } });
  const search = async (query: string): Promise<SearchPage> => {
    const res = await get(`/offers?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  /** Every id of the search, page by page by next_cursor (`per_page` small: many pages). */
  const walk = async (query: string, perPage = 3) => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 200; pages++) {
      const r = await search(`${query}&per_page=${perPage}${after === null ? '' : `&after=${after}`}`);
      seen.push(...r.offers.map((o) => o.id));
      expect(r.offers.length).toBeLessThanOrEqual(perPage);
      if (r.next_cursor === null) return seen;
      expect(r.offers).toHaveLength(perPage); // a cursor only where another offer follows
      after = r.next_cursor;
    }
    throw new Error(`${query}: more than 200 pages`);
  };
  /** The ids of one page holding every match (the order the page numbers read). */
  const all = async (query: string) => {
    const r = await search(`${query}&per_page=100`);
    expect(r.next_cursor).toBeNull();
    return r.offers.map((o) => o.id);
  };
  const expect422 = async (query: string, message?: RegExp) => {
    const res = await get(`/offers?${query}`);
    expect(res.statusCode).toBe(422);
    const error = res.json().errors.find((e: { field?: string }) => e.field === 'after');
    expect(error).toMatchObject({ code: 'invalid_field', field: 'after' });
    if (message) expect(error.message).toMatch(message);
  };

  beforeAll(async () => {
    h = await createHarness();
    distKey = await h.key('distribution');
    clientId = (await h.client('submission')).clientId;
    // 19 offers with ties in every sort key: 3 prices (and no price: coupons without one), 4 titles,
    // 3 start and 2 end dates, 5 points (two shared), and (below) 4 publication and 3 update times a
    // microsecond apart, one offer never published.
    for (let i = 0; i < 19; i++) {
      const free = i % 6 === 5;
      const price = 1000 * (1 + (i % 3));
      const spot = [0, 0, 0.05, 0.1, 0.1][i % 5];
      const place = (d: number) => ({ city, country_code: 'US', latitude: centre.latitude + d, longitude: centre.longitude + d });
      const id = await seedOffer(h, clientId, {
        title: `Cursor offer ${i % 4}`,
        type: free ? 'coupon' : 'deal',
        price: free ? undefined : { currency_code: 'USD', amount: price },
        value: free || i % 4 === 1 ? undefined : { currency_code: 'USD', amount: price * 2 },
        discount: free || i % 4 === 1 ? undefined : { type: 'percentage', percentage: 50 },
        start_date: `2026-01-0${1 + (i % 3)}`,
        end_date: i % 2 ? '2099-12-31' : '2099-12-30',
        advertiser: {
          name: 'Cursor Co',
          categories: [{ id: 2 }],
          // One offer has two locations in the circle: found once, at its nearer one.
          redemption_locations: i === 4 ? [place(0.2), place(spot)] : [place(spot)],
        },
      });
      visible.add(id);
      changedToday.add(id);
    }
    // Microseconds apart: the cursor must carry them (a key in milliseconds would repeat or skip offers).
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 23);
    for (const [n, id] of [...visible].entries())
      await h.services.db
        .updateTable('offers')
        .set({
          published_at: n === 7 ? null : sql<Date>`${`2026-11-20T10:00:00.12345${n % 4}Z`}::timestamptz`,
          updated_at: sql<Date>`${`${anHourAgo}00${n % 3}Z`}::timestamptz`,
        })
        .where('id', '=', id)
        .execute();
    // Out of the visible set: cancelled today (a sync reports it closed), and one unchanged for ten days.
    const closed = await seedOffer(
      h,
      clientId,
      { advertiser: { name: 'Cursor Co', categories: [{ id: 2 }], redemption_locations: [{ city, country_code: 'US' }] } },
      'cancelled',
    );
    changedToday.add(closed);
    old = await seedOffer(h, clientId, {
      advertiser: { name: 'Cursor Co', categories: [{ id: 2 }], redemption_locations: [{ city, country_code: 'US' }] },
    });
    const tenDaysAgo = new Date(Date.now() - 10 * DAY);
    await h.services.db.updateTable('offers').set({ published_at: tenDaysAgo, updated_at: tenDaysAgo }).where('id', '=', old).execute();
    visible.add(old);
  });
  afterAll(() => h.close());

  it('walks every offer exactly once, in the order of one whole page, for every sort in a city', async () => {
    const inCity = `city=${encodeURIComponent(city)}`;
    for (const field of SORT_FIELDS.filter((f) => f !== 'distance' && f !== 'relevance'))
      for (const direction of ['asc', 'desc']) {
        const query = `${inCity}&sort_by=${field}+${direction}`;
        const whole = await all(query);
        expect(new Set(whole)).toEqual(visible);
        expect(await walk(query)).toEqual(whole);
      }
    // The default order (newest first), and pages of one.
    expect(await walk(inCity, 1)).toEqual(await all(inCity));
  });

  it('walks a radius search by distance (ties at one point), price, newest and title', async () => {
    const inCircle = [...visible].filter((id) => id !== old);
    for (const sort of [
      '',
      '&sort_by=distance+asc',
      '&sort_by=distance+desc',
      '&sort_by=price+asc',
      '&sort_by=published_at+desc',
      '&sort_by=title+asc',
    ]) {
      const whole = await all(`${near}${sort}`);
      expect(new Set(whole)).toEqual(new Set(inCircle));
      expect(await walk(`${near}${sort}`, 2)).toEqual(whole);
    }
  });

  it('walks the paths of a search past its count bound the same way (store, bound 2)', async () => {
    const walkStore = async (query: string) => {
      const q = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(query)), per_page: '4' });
      const { centre: at } = await searchCentre(h.services, q);
      const base: OfferSearch = { ...offerSearch(q, [], new Date(), clientId, at), totalBound: 2 };
      const seen: string[] = [];
      let r = await searchDistributionOffers(h.services.db, base);
      seen.push(...r.rows.map((o) => o.id));
      while (r.next) {
        // Through its text form, as a client sends it.
        const after = decodeSearchCursor(encodeSearchCursor(r.next))!;
        r = await searchDistributionOffers(h.services.db, { ...base, after });
        seen.push(...r.rows.map((o) => o.id));
      }
      expect(r.total_relation).toBe('gte');
      return seen;
    };
    for (const query of [
      `${near}&sort_by=price+asc`,
      `${near}&sort_by=price+desc`,
      `${near}&sort_by=title+desc`,
      `${near}&sort_by=discount+asc`,
    ])
      expect(await walkStore(query)).toEqual(await all(query));
  });

  it('walks a catalogue sync (recently_updated and recently_closed by updated_at) and keeps an offer changed mid-walk', async () => {
    const sync = `recently_updated=1&recently_closed=1&sort_by=updated_at+asc&city=${encodeURIComponent(city)}`;
    const whole = await all(sync);
    expect(new Set(whole)).toEqual(changedToday);
    expect(await walk(sync, 4)).toEqual(whole);

    // An offer of the first page changes after it was read: it moves to the end of the order. By
    // cursor nothing is skipped (it is seen again, later); by page number the offers after it would
    // move one place forward and one of them would be missed.
    const first = await search(`${sync}&per_page=4`);
    const moved = first.offers[0].id;
    await h.services.db.updateTable('offers').set({ updated_at: new Date() }).where('id', '=', moved).execute();
    const seen = first.offers.map((o) => o.id);
    let after = first.next_cursor;
    while (after) {
      const r = await search(`${sync}&per_page=4&after=${after}`);
      seen.push(...r.offers.map((o) => o.id));
      after = r.next_cursor;
    }
    expect(new Set(seen)).toEqual(changedToday);
    expect(seen.filter((id) => id === moved)).toHaveLength(2);
  });

  it('keeps page numbers as they were, and a page-number page hands out the cursor of the next one', async () => {
    const query = `city=${encodeURIComponent(city)}&sort_by=price+asc&per_page=5`;
    const one = await search(query);
    const two = await search(`${query}&page=2`);
    expect(one).toMatchObject({ page: 1, per_page: 5, total: visible.size, total_relation: 'eq' });
    expect(two).toMatchObject({ page: 2, per_page: 5, total: visible.size, total_relation: 'eq' });
    const next = await search(`${query}&after=${one.next_cursor}`);
    expect(next.offers.map((o) => o.id)).toEqual(two.offers.map((o) => o.id));
    expect(next).toMatchObject({ page: 1, total: visible.size, total_relation: 'eq' });
    // page=1 with after is the same request.
    expect((await search(`${query}&page=1&after=${one.next_cursor}`)).offers).toEqual(next.offers);
    // The last page's cursor is null; so is that of a page past the end.
    expect((await search(`${query}&page=4`)).next_cursor).toBeNull();
    expect((await search(`${query}&page=9`)).next_cursor).toBeNull();
  });

  it('shows next_cursor in XML, empty on the last page', async () => {
    const query = `city=${encodeURIComponent(city)}&per_page=100`;
    const xml = (q: string) => get(`/offers?${q}`, { accept: 'application/xml' });
    const more = await xml(query.replace('per_page=100', 'per_page=2'));
    expect(more.statusCode).toBe(200);
    const cursor = /<next_cursor>([A-Za-z0-9_-]+)<\/next_cursor>/.exec(more.body)?.[1];
    expect(cursor && decodeSearchCursor(cursor)).toMatchObject({ sort: { field: 'published_at', direction: 'desc' } });
    const last = await xml(query);
    expect(last.body).toMatch(/<next_cursor\s*\/>|<next_cursor><\/next_cursor>/);
  });

  it('refuses a cursor with a page number, one it did not hand out, or one of another sort (422 on after)', async () => {
    const query = `city=${encodeURIComponent(city)}&sort_by=price+asc&per_page=2`;
    const cursor = (await search(query)).next_cursor!;
    await expect422(`${query}&after=${cursor}&page=2`, /not both/);
    // Another sort, or the default of another kind of search (nearest first around a centre).
    await expect422(`city=${encodeURIComponent(city)}&sort_by=price+desc&after=${cursor}`, /sorted by price asc.*price desc/);
    const nearest = (await search(`${near}&per_page=2`)).next_cursor!;
    await expect422(`city=${encodeURIComponent(city)}&after=${nearest}`, /sorted by distance asc/);
    // Given twice.
    const twice = await get(`/offers?${query}&after=${cursor}&after=${cursor}`);
    expect(twice.statusCode).toBe(422);
    expect(twice.json().errors[0]).toMatchObject({ field: 'after', message: expect.stringMatching(/once/) });

    const forged = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');
    const id = 'ofr_x';
    const bad = [
      '',
      'not a cursor',
      '\u0000',
      cursor.slice(0, -3),
      `${cursor}x`,
      Buffer.from('{"v":1').toString('base64url'),
      forged([1, 2]),
      forged({ v: 2, s: 'price asc', k: '1000', i: id }),
      forged({ v: 1, s: 'price asc', k: '1000', i: id, extra: 1 }),
      forged({ v: 1, s: 'price sideways', k: '1000', i: id }),
      forged({ v: 1, s: 'popularity asc', k: '1000', i: id }),
      forged({ v: 1, s: 'price asc', k: '1000', i: 'ofr x' }),
      forged({ v: 1, s: 'price asc', k: 1000, i: id }),
      forged({ v: 1, s: 'price asc', k: '99999999999999999999', i: id }),
      forged({ v: 1, s: 'price asc', k: '1e3', i: id }),
      forged({ v: 1, s: 'title asc', k: null, i: id }),
      forged({ v: 1, s: 'title asc', k: 'a\u0000b', i: id }),
      forged({ v: 1, s: 'title asc', k: 'x'.repeat(1001), i: id }),
      forged({ v: 1, s: 'start_date asc', k: '2026-02-30', i: id }),
      forged({ v: 1, s: 'published_at asc', k: '2026-11-20T10:00:00.123Z', i: id }),
      forged({ v: 1, s: 'published_at asc', k: '0000-01-01T00:00:00.000000Z', i: id }),
      forged({ v: 1, s: 'updated_at asc', k: '2026-11-20T24:00:00.000000Z', i: id }),
      forged({ v: 1, s: 'distance asc', k: -1, i: id }),
      forged({ v: 1, s: 'distance asc', k: '1', i: id }),
      forged({ v: 1, s: 'discount asc', k: 'NaN', i: id }),
      'A'.repeat(9000),
    ];
    for (const after of bad) await expect422(`${query}&after=${encodeURIComponent(after)}`, /not a cursor of this search|NUL/);

    // An edited cursor that still decodes is a position in the same order: the offers after it.
    const cheapest = forged({ v: 1, s: 'price asc', k: '1500', i: 'ofr_' });
    const after1500 = await search(`city=${encodeURIComponent(city)}&sort_by=price+asc&per_page=100&after=${cheapest}`);
    expect(after1500.offers.length).toBeGreaterThan(0);
    expect(after1500.offers.every((o) => !o.price || (o.price as { amount: number }).amount > 1500)).toBe(true);
  });
});
