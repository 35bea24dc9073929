import crypto from 'node:crypto';
import { sql } from 'kysely';
import { FEW_MATCHES, queryWords } from '../../../domain/keyword-search';
import type { OfferDocument } from '../../../domain/offer';
import { DistributionOfferQuery } from '../../../schemas/distribution-offer';
import { offerSearch } from '../../../services/distribution-offers';
import { resolveKeywords, withNearbyEstimate } from '../../../store/distribution-keywords';
import { searchDistributionOffers } from '../../../store/distribution-search';
import { writeSearchRows } from '../../../store/offer-search-rows';
import { changeOfferStatus } from '../../../store/offers';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

interface Found {
  id: string;
  title: string;
  distance?: number;
  matched?: Array<{ field: string; fragment: string }>;
}
interface SearchPage {
  offers: Found[];
  total: number;
  total_relation: string;
  next_cursor: string | null;
}

/*
 * Keyword search (`q`, issue 47; docs/distribution-search.md "Keyword search"): typos, stems,
 * accents, prefixes, relevance (with a centre, with the distance), every filter beside `q`, paging
 * by cursor, `matched`, XML, and hostile `q` (never a 500; 422 only when too long).
 *
 * Other files share the catalogue: each offer here carries a word of its own (MARK, in its fine
 * print) and every query starts with it, so only these offers match.
 */
describe('distribution search: keyword search (q)', () => {
  let h: Harness;
  let distKey: string;
  let clientId: string;
  const MARK = `kwmark${crypto
    .randomUUID()
    .replace(/[^a-f]/g, '')
    .slice(0, 8)}`;
  /** A word of the ranking's offers alone, searched without MARK (ts_rank weighs two words' proximity too). */
  const RANK = `kwrank${crypto
    .randomUUID()
    .replace(/[^a-f]/g, '')
    .slice(0, 8)}`;
  const city = `Kwville ${crypto.randomUUID().slice(0, 8)}`;
  const centre = { latitude: -30 - Math.random() * 5, longitude: -30 - Math.random() * 5 };
  const near = `lat=${centre.latitude.toFixed(6)}&lng=${centre.longitude.toFixed(6)}&radius=50`;
  /** The offers by name. */
  const ids: Record<string, string> = {};

  const get = (url: string, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: `${DIST}${url}`, headers: { 'x-service-api-key': distKey, ...headers } });
  const search = async (query: string): Promise<SearchPage> => {
    const res = await get(`/offers?q=${encodeURIComponent(`${MARK} `)}${query}&per_page=100`);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  /** The names of the offers `q=MARK <words>` finds, in order. */
  const names = async (words: string, more = '') => {
    const r = await search(`${encodeURIComponent(words)}${more}`);
    const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
    return r.offers.map((o) => byId[o.id] ?? o.id);
  };
  /** A miles offset north of the centre, as a location. */
  const at = (miles: number, extra: Record<string, unknown> = {}) => ({
    city,
    state_code: 'KW',
    country_code: 'US',
    latitude: centre.latitude + miles / 69.0545,
    longitude: centre.longitude,
    ...extra,
  });
  const offer = async (
    name: string,
    o: { title: string; headlines?: string[]; description?: string; advertiser?: string; categories?: number[]; at?: number },
    extra: Record<string, unknown> = {},
  ) => {
    ids[name] = await seedOffer(h, clientId, {
      title: o.title,
      fine_print: `Ask for ${MARK}.`,
      creative: {
        requires_editorial_support: false,
        headlines: o.headlines ?? [],
        description: o.description ?? 'A fine offer.',
        original_media: [],
      },
      advertiser: {
        name: o.advertiser ?? 'Kw Merchant',
        categories: (o.categories ?? [22]).map((id) => ({ id })),
        redemption_locations: o.at === undefined ? [] : [at(o.at)],
      },
      ...extra,
    });
  };

  beforeAll(async () => {
    h = await createHarness();
    distKey = await h.key('distribution');
    clientId = (await h.client('submission')).clientId;
    await offer('title', { title: 'Sushi platter for two', categories: [2], at: 1 });
    await offer('headline', { title: 'Ramen night', headlines: ['Sushi included'], categories: [2], at: 0.5 });
    await offer('advertiser', { title: 'Dinner set', advertiser: 'Sushi Corner', categories: [2], at: 2 });
    await offer('description', { title: 'Bento box', description: 'Comes with sushi on the side.', at: 3 });
    await offer('farTitle', { title: 'Sushi boat', categories: [2], at: 30 });
    await offer('rTitle', { title: `${RANK} platter`, at: 1 });
    await offer('rHeadline', { title: 'Lunch', headlines: [`${RANK} included`], at: 0.5 });
    await offer('rAdvertiser', { title: 'Dinner', advertiser: `${RANK} Corner`, at: 2 });
    await offer('rDescription', { title: 'Box', description: `Comes with ${RANK} on the side.`, at: 3 });
    await offer('rFar', { title: `${RANK} boat`, at: 30 });
    await offer('massage', { title: 'Spa afternoon', description: 'Two relaxing massages and a sauna.', categories: [11], at: 4 });
    await offer('creme', { title: 'Crème brûlée tasting', advertiser: 'Café Zoë', categories: [3], at: 5 }, { type: 'coupon' });
    await offer('aroma', { title: 'Aromatherapy session', categories: [11] });
    await offer('tofu', { title: 'Tofu bowl', at: 6 });
    await offer('html', { title: 'Sushi <b>bar</b> & grill', description: 'Fresh sushi.', at: 7 });
    // Not visible: suspended, so never found; and cancelled today, found only by recently_closed.
    await offer('closed', { title: 'Sushi to go', at: 1 });
    await changeOfferStatus(h.services.db, { key: `kw:${ids.closed}:cancel`, offerId: ids.closed, to: 'cancelled', actor: 'advertiser' });
  });
  afterAll(() => h.close());

  it('tolerates typos by length (one from 5 letters, two from 9), stems, ignores accents and matches prefixes', async () => {
    const sushi = ['title', 'headline', 'advertiser', 'description', 'html', 'farTitle'];
    expect(new Set(await names('sushl'))).toEqual(new Set(sushi));
    expect(new Set(await names('suhsi'))).toEqual(new Set(sushi)); // a transposition is one edit
    expect(await names('sxshl ')).toEqual([]); // two edits in five letters
    expect(await names('aromathreapi ')).toEqual(['aroma']); // two edits in twelve
    expect(await names('tofo ')).toEqual([]); // four letters: no typo
    // The description's massages, and the category Spas & Massage (both offers are filed there).
    expect(await names('massage')).toEqual(['massage', 'aroma']);
    expect(await names('massaging')).toEqual(['massage', 'aroma']);
    expect(await names('creme brulee')).toEqual(['creme']);
    expect(await names('CRÈME BRÛLÉE')).toEqual(['creme']);
    expect(await names('cafe zoe')).toEqual(['creme']);
    expect(new Set(await names('sus'))).toEqual(new Set(sushi)); // the last word as a prefix while typing
    expect(await names('aromath')).toEqual(['aroma']);
    expect(await names('aromath ')).toEqual([]); // finished typing: a word of its own
    // Every word must match.
    expect(await names('sushi platter')).toEqual(['title']);
  });

  it('ranks by field (title, headline, advertiser, description) and, with a centre, by relevance and distance', async () => {
    const ranked = async (more: string) => {
      const res = await get(`/offers?q=${RANK}%20${more}`);
      const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      return (res.json() as SearchPage).offers.map((o) => ({ name: byId[o.id], distance: o.distance }));
    };
    const order = (await ranked('')).map((o) => o.name);
    expect(order.slice(0, 2).sort()).toEqual(['rFar', 'rTitle']);
    expect(order.slice(2)).toEqual(['rHeadline', 'rAdvertiser', 'rDescription']);
    // Around the centre: relevance × 10 / (10 + miles). The title 1 mile out before the one 30 miles out,
    // and the headline half a mile out (0.4 × 10/10.5) before the title 30 miles out (1 × 10/40).
    const around = await ranked(`&${near}`);
    expect(around.map((o) => o.name)).toEqual(['rTitle', 'rHeadline', 'rFar', 'rAdvertiser', 'rDescription']);
    expect(around[0].distance).toBeCloseTo(1, 1);
  });

  it('says what matched: the fields, best first, with the words in <em> and the text escaped', async () => {
    const top = (await search('sushi ')).offers.find((o) => o.id === ids.title)!;
    expect(top.matched).toEqual([
      { field: 'title', fragment: '<em>Sushi</em> platter for two' },
      { field: 'fine_print', fragment: `Ask for <em>${MARK}</em>.` },
    ]);
    const html = (await search('grill')).offers[0];
    // ts_headline drops markup tags from the text it shows; what is left is escaped.
    expect(html.matched![0]).toEqual({ field: 'title', fragment: 'Sushi  bar  &amp; <em>grill</em>' });
    const massage = (await search('massages ')).offers[0];
    expect(massage.matched).toContainEqual({ field: 'description', fragment: 'Two relaxing <em>massages</em> and a sauna.' });
  });

  it('applies every filter beside q', async () => {
    const sushi = async (more: string) => new Set(await names('sushi ', more));
    const visibleSushi = new Set(['title', 'headline', 'advertiser', 'description', 'html', 'farTitle']);
    expect(await sushi('')).toEqual(visibleSushi);
    expect(await sushi('&types=deal')).toEqual(visibleSushi);
    expect(await names('creme ', '&types=coupon')).toEqual(['creme']);
    expect(await names('creme ', '&types=deal')).toEqual([]);
    expect(await sushi('&categories=1')).toEqual(new Set(['title', 'headline', 'advertiser', 'farTitle'])); // Food & Drink and below
    expect(await sushi('&category_ids=2')).toEqual(new Set(['title', 'headline', 'advertiser', 'farTitle']));
    expect(await sushi(`&city=${encodeURIComponent(city)}`)).toEqual(visibleSushi);
    expect(await sushi('&state_code=KW')).toEqual(visibleSushi);
    expect(await sushi('&city=Elsewhere')).toEqual(new Set());
    expect(await names('aromatherapy ', '&country_code=US')).toEqual(['aroma']); // no location: nationwide
    expect(await sushi('&country_code=US')).toEqual(new Set());
    expect(await sushi(`&${near.replace('radius=50', 'radius=5')}`)).toEqual(new Set(['title', 'headline', 'advertiser', 'description']));
    expect(await sushi('&recently_published=1')).toEqual(visibleSushi);
    expect(await sushi('&recently_updated=1&recently_closed=1')).toEqual(new Set([...visibleSushi, 'closed']));
    expect(await sushi('&recently_closed=1')).toEqual(new Set(['closed']));
    // Other sorts: q is then a filter.
    expect((await search('sushi+&sort_by=title+asc')).offers.map((o) => o.title)).toEqual(
      ['Bento box', 'Dinner set', 'Ramen night', 'Sushi <b>bar</b> & grill', 'Sushi boat', 'Sushi platter for two'].sort(),
    );
    expect(await names('sushi ', `&${near}&sort_by=distance`)).toEqual([
      'headline',
      'title',
      'advertiser',
      'description',
      'html',
      'farTitle',
    ]);
    expect(new Set(await names('sushi ', `&${near}&sort_by=price+asc`))).toEqual(visibleSushi);
  });

  it('keeps the index current: an edit, a suspension', async () => {
    await offer('edited', { title: 'Plain lunch', at: 1 });
    expect(await names('kombucha ')).toEqual([]);
    await sql`update offers set document = jsonb_set(document, '{title}', '"Kombucha lunch"') where id = ${ids.edited}`.execute(
      h.services.db,
    );
    expect(await names('kombucha ')).toEqual(['edited']);
    expect(await names('kombuhca ')).toEqual(['edited']); // the new word is in the vocabulary for typos
    await changeOfferStatus(h.services.db, { key: `kw:${ids.edited}:suspend`, offerId: ids.edited, to: 'suspended', actor: 'advertiser' });
    expect(await names('kombucha ')).toEqual([]);
  });

  it('finds an offer near where its locations are now: moved, moved back, removed', async () => {
    await offer('moving', { title: 'Wandering teahouse', at: 1 });
    const around = (centreOf: { latitude: number; longitude: number }) =>
      names('teahouse ', `&lat=${centreOf.latitude.toFixed(6)}&lng=${centreOf.longitude.toFixed(6)}&radius=20`);
    const away = { latitude: centre.latitude, longitude: centre.longitude + 4 };
    expect(await around(centre)).toEqual(['moving']);
    // Its write replaces its locations (store/offer-search-rows.ts): deleted, then inserted elsewhere.
    const doc = (await h.services.db.selectFrom('offers').select('document').where('id', '=', ids.moving).executeTakeFirstOrThrow())
      .document as OfferDocument;
    const moved = { ...doc, advertiser: { ...doc.advertiser, redemption_locations: [{ ...at(1), ...away }] } };
    await h.services.db.transaction().execute((trx) => writeSearchRows(trx, ids.moving, moved));
    expect(await around(centre)).toEqual([]);
    expect(await around(away)).toEqual(['moving']);
    await sql`update offer_locations set latitude = ${centre.latitude}, longitude = ${centre.longitude} where offer_id = ${ids.moving}`.execute(
      h.services.db,
    );
    expect(await around(centre)).toEqual(['moving']);
    await h.services.db.deleteFrom('offer_locations').where('offer_id', '=', ids.moving).execute();
    expect(await around(centre)).toEqual([]);
  });

  it('ranks the same nearest matches whichever way the planner estimate sends it: the cells or the circle nearest first', async () => {
    const dist = await h.client('distribution');
    const query = DistributionOfferQuery.parse({
      q: `${MARK} sushi`,
      lat: centre.latitude,
      lng: centre.longitude,
      radius: 50,
      per_page: 100,
    });
    const keywords = await resolveKeywords(h.services.db, queryWords(query.q!));
    const estimated = await withNearbyEstimate(h.services.db, offerSearch(query, [], new Date(), dist.clientId, centre, false, keywords));
    expect(estimated.keywords!.nearby).toBeGreaterThan(0); // the planner's estimate, from the cells
    const found = async (nearby: number) => {
      const search = offerSearch(query, [], new Date(), dist.clientId, centre, false, { ...keywords, nearby });
      return (await searchDistributionOffers(h.services.db, search)).rows.map((r) => [r.id, r.distance]);
    };
    const byCells = await found(0);
    expect(byCells.map(([id]) => id)).toEqual(expect.arrayContaining([ids.title, ids.headline, ids.farTitle]));
    expect(await found(FEW_MATCHES + 1)).toEqual(byCells);
  });

  it('pages by cursor through ties and distances exactly as one whole page', async () => {
    for (const query of ['', `&${near}`, '&sort_by=relevance+desc', '&sort_by=title']) {
      const whole = (await search(query)).offers.map((o) => o.id);
      expect(whole.length).toBeGreaterThan(5);
      const seen: string[] = [];
      let after = '';
      for (let pages = 0; pages < 50; pages++) {
        const res = await get(`/offers?q=${MARK}%20${query}&per_page=2${after}`);
        const page: SearchPage = res.json();
        seen.push(...page.offers.map((o) => o.id));
        if (!page.next_cursor) break;
        after = `&after=${page.next_cursor}`;
      }
      expect(seen).toEqual(whole);
    }
  });

  it('answers XML with matched as a list of match elements', async () => {
    const res = await get(`/offers.xml?q=${MARK}+platter`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      '<matched><match><field>title</field><fragment>Sushi &lt;em&gt;platter&lt;/em&gt; for two</fragment></match>',
    );
  });

  it('refuses relevance without q, relevance ascending and a q over 200 characters (422); anything else is never an error', async () => {
    const refused = async (query: string, field: string) => {
      const res = await get(`/offers?${query}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field });
    };
    await refused('sort_by=relevance', 'sort_by');
    await refused(`q=${MARK}&sort_by=relevance+asc`, 'sort_by');
    await refused(`q=${'a'.repeat(201)}`, 'q');
    await refused(`q=${MARK}&q=sushi`, 'q');
    const hostile = [
      `${MARK} :* & | ! ( ) <-> <2> 'sushi' "sushi" \\`,
      `${MARK} .*[a-z]+$^ (?:x)|\\d{1,99999}`,
      `${MARK} '; drop table offers; --`,
      'the and of a',
      '!!! ??? ...',
      `${'x'.repeat(200)}`,
      `${'ab '.repeat(66)}`,
      `${MARK} 😀 مرحبا 東京 ß ǅ`,
      '\u0001\uE000\uE001 <script>',
      '%',
    ];
    for (const q of hostile) {
      const res = await get(`/offers?q=${encodeURIComponent(q)}`);
      expect([200, 422]).toContain(res.statusCode);
      if (res.statusCode === 422) expect(res.json().errors[0].field).not.toBe('q');
      else if (!q.startsWith(MARK)) expect(res.json().offers.every((o: Found) => o.matched)).toBe(true);
    }
    // NUL, as in every text parameter: 422 naming it (docs/security.md).
    const nul = await get(`/offers?q=${encodeURIComponent(`${MARK}\u0000`)}`);
    expect(nul.statusCode).toBe(422);
    expect(nul.json().errors[0].message).toMatch(/NUL/);
    // Only stop words: nothing matches (no error). A blank q is no keyword search.
    expect((await get('/offers?q=the+and+of')).json()).toMatchObject({ total: 0, offers: [] });
    expect((await get(`/offers?q=+&city=${encodeURIComponent(city)}`)).json().offers.length).toBeGreaterThan(5);
  });
});
