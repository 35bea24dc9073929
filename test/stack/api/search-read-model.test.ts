import { sql } from 'kysely';
import type { Db } from '../../../store/db';
import { migrateToLatest } from '../../../store/migrate';
import { changeOfferStatus, saveOfferFields } from '../../../store/offers';
import { lockOffers, moveStock } from '../../../store/offer-stock';
import { searchDistributionOffers } from '../../../store/distribution-search';
import { categoryTree } from '../../../store/categories';
import { offerSearch, searchCentre } from '../../../services/distribution-offers';
import { DistributionOfferQuery } from '../../../schemas/distribution-offer';
import { OfferInput } from '../../../schemas/offer';
import { validOffer, writeOffer } from '../../setup/fixtures';
import { scratchDatabase } from '../../setup/scratch-database';

/*
 * The search rows carry copies of their offer's filters (migration 0037), kept by triggers: a
 * database of its own, so a search's totals count only the offers written here (the suite's
 * database holds every other test's offers).
 */
describe('search rows as a read model', () => {
  const scratch = scratchDatabase('search_read_model');
  let db: Db;
  beforeAll(async () => {
    db = scratch.open();
    await migrateToLatest(db);
    await db
      .insertInto('api_clients')
      .values({ id: 'cli_s', name: 'Agent', interface: 'submission', environment: 'sandbox', key_hash: 'h1', key_prefix: 'p1' })
      .execute();
  });
  afterAll(() => db.destroy());

  const input = (overrides: Record<string, unknown> = {}, advertiser: Record<string, unknown> = {}) => {
    const base = validOffer(overrides);
    return OfferInput.parse({ ...base, advertiser: { ...(base.advertiser as object), ...advertiser } });
  };
  const nyc = { address_line_1: '350 5th Ave', city: 'New York', state_code: 'NY', postal_code: '10118', country_code: 'US' };
  const la = { address_line_1: '1 Rodeo Dr', city: 'Beverly Hills', state_code: 'CA', postal_code: '90210', country_code: 'US' };

  /** What a publisher's `GET /offers?<qs>` finds: ids (sorted) and total. */
  const find = async (qs: string) => {
    const q = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(qs)), per_page: '100' });
    const { centre, byCity } = await searchCentre({ db } as never, q);
    const found = await searchDistributionOffers(db, offerSearch(q, await categoryTree(db), new Date(), 'cli_d', centre, byCity));
    return { ids: found.rows.map((r) => r.id).sort(), total: found.total };
  };
  /** Every search row of the offer: its copies of the offer's values. */
  const rowsOf = async (id: string) => {
    const locations = await sql<{ on_sale: boolean; category_ids: number[]; xmin: string }>`
      select on_sale, category_ids, xmin::text from offer_locations where offer_id = ${id} order by position`.execute(db);
    const categories = await sql<{ on_sale: boolean; category_id: number }>`
      select on_sale, category_id from offer_categories where offer_id = ${id} order by category_id`.execute(db);
    return { locations: locations.rows, categories: categories.rows };
  };
  const move = (id: string, stock: number, key: string) =>
    db.transaction().execute(async (trx) => {
      const offer = (await lockOffers(trx, [id])).get(id)!;
      await moveStock(trx, offer, { stock, reserved: 0, key, reason: 'order' });
    });

  it('a new offer’s rows copy it: on sale once approved, with its categories', async () => {
    const pending = await writeOffer(db, 'cli_s', input({ title: 'Pending' }, { categories: [{ id: 3 }] }), 'pending');
    expect(await rowsOf(pending)).toMatchObject({ locations: [{ on_sale: false, category_ids: [3] }], categories: [{ on_sale: false }] });
    await changeOfferStatus(db, { key: `t:${pending}:approve`, offerId: pending, to: 'approved', actor: 'review_team' });
    expect(await rowsOf(pending)).toMatchObject({ locations: [{ on_sale: true }], categories: [{ on_sale: true, category_id: 3 }] });
    expect(await find('categories=3')).toEqual({ ids: [pending], total: 1 });
    expect(await find('state_code=NY&categories=3')).toEqual({ ids: [pending], total: 1 });
    expect(await find('postal_code=10001&categories=3')).toEqual({ ids: [pending], total: 1 });
  });

  it('follows the stock only when it sells out or comes back, not on every sale', async () => {
    const id = await writeOffer(db, 'cli_s', input({ initial_quantity: 2 }, { categories: [{ id: 4 }] }), 'approved');
    const before = (await rowsOf(id)).locations[0].xmin;
    await move(id, -1, `t:${id}:sale1`);
    // A sale that leaves stock: the search rows are not written (orders are hot; issue 23).
    expect((await rowsOf(id)).locations[0].xmin).toBe(before);
    expect(await find('categories=4')).toEqual({ ids: [id], total: 1 });
    await move(id, -1, `t:${id}:sale2`);
    expect(await rowsOf(id)).toMatchObject({ locations: [{ on_sale: false }], categories: [{ on_sale: false }] });
    for (const qs of ['categories=4', 'state_code=NY&categories=4', 'postal_code=10001&categories=4'])
      expect(await find(qs)).toEqual({ ids: [], total: 0 });
    await move(id, 1, `t:${id}:cancel`);
    expect(await find('categories=4')).toEqual({ ids: [id], total: 1 });
    expect(await find('postal_code=10001&categories=4')).toEqual({ ids: [id], total: 1 });
  });

  it('follows a withdrawal, and an edit of its categories, locations, type and dates', async () => {
    const id = await writeOffer(db, 'cli_s', input({ type: 'deal' }, { categories: [{ id: 5 }] }), 'approved');
    expect(await find('categories=5&types=deal')).toEqual({ ids: [id], total: 1 });
    await changeOfferStatus(db, { key: `t:${id}:withdraw`, offerId: id, to: 'withdrawn', actor: 'advertiser' });
    expect(await find('categories=5')).toEqual({ ids: [], total: 0 });
    expect(await find('state_code=NY&categories=5')).toEqual({ ids: [], total: 0 });

    // Edited while withdrawn (another category, another place, another type), then approved again.
    const edited = input({ type: 'coupon' }, { categories: [{ id: 12 }], redemption_locations: [la] });
    await saveOfferFields(db, { key: `t:${id}:edit`, offerId: id, input: edited, changedFields: ['advertiser', 'type'] });
    await changeOfferStatus(db, { key: `t:${id}:approve`, offerId: id, to: 'approved', actor: 'review_team' });
    expect(await rowsOf(id)).toMatchObject({ locations: [{ on_sale: true, category_ids: [12] }], categories: [{ category_id: 12 }] });
    expect(await find('categories=5')).toEqual({ ids: [], total: 0 });
    expect(await find('categories=12&types=coupon')).toEqual({ ids: [id], total: 1 });
    expect(await find('categories=12&types=deal')).toEqual({ ids: [], total: 0 });
    expect(await find('state_code=CA&categories=12')).toEqual({ ids: [id], total: 1 });
    expect(await find('postal_code=90210&categories=12')).toEqual({ ids: [id], total: 1 });
    expect(await find('postal_code=10001&categories=12')).toEqual({ ids: [], total: 0 });

    // Its end date moved into the past (as an expiry or a data fix would): off sale from its rows too.
    await db.updateTable('offers').set({ end_date: '2025-12-31' }).where('id', '=', id).execute();
    expect(await find('categories=12')).toEqual({ ids: [], total: 0 });
    expect(await find('postal_code=90210&categories=12')).toEqual({ ids: [], total: 0 });
  });

  it('counts an offer filed under several asked categories, or located twice in the place, once', async () => {
    const id = await writeOffer(
      db,
      'cli_s',
      input({}, { categories: [{ id: 42 }, { id: 43 }], redemption_locations: [nyc, { ...nyc, postal_code: '10001' }] }),
      'approved',
    );
    expect(await find('categories=40')).toEqual({ ids: [id], total: 1 });
    expect(await find('category_ids=42,43')).toEqual({ ids: [id], total: 1 });
    expect(await find('state_code=NY&categories=40')).toEqual({ ids: [id], total: 1 });
    expect(await find('postal_code=10001&categories=40')).toEqual({ ids: [id], total: 1 });
  });
});
