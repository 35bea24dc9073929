import crypto from 'node:crypto';
import { sql } from 'kysely';
import { addDays, endOfUtcDayMs, utcDay } from '../../../domain/dates';
import { distributionEventType } from '../../../schemas/callback-event';
import { recordVouchersExpired } from '../../../store/offer-stock';
import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * An offer whose vouchers would already be expired when bought is neither sold, nor held, nor
 * listed; the offer's own fields may not say so; and when its vouchers_expire.on is over it leaves
 * the catalogue as a sold-out offer does.
 */
describe('expired vouchers are not sold', () => {
  let h: Harness;
  let distKey: string;
  let subKey: string;
  let subClient: string;
  const today = utcDay();
  const yesterday = addDays(today, -1);
  beforeAll(async () => {
    ({
      h,
      dist: distKey,
      sub: { key: subKey, clientId: subClient },
    } = await harnessWithKeys({ reservations: true }));
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, key = distKey) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const order = (items: { offer_id: string; quantity: number }[]) =>
    call('POST', `${DIST}/orders`, { order: { order_number: `n-${crypto.randomUUID()}`, customer_name: 'Ada Lovelace', items } });
  const offerRow = (id: string) =>
    h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'reserved_quantity', 'availability_changed_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const eventTypes = async (id: string) =>
    (await h.services.db.selectFrom('offer_events').select('type').where('offer_id', '=', id).orderBy('sequence').execute()).map(
      (e) => e.type,
    );
  /** A city no other test uses, so a search by it finds only this test's offers. */
  const cityOffer = (city: string) => ({
    advertiser: {
      name: 'Trattoria Roma',
      categories: [],
      redemption_locations: [{ address_line_1: '1 Main St', city, state_code: 'NY', postal_code: '10118', country_code: 'US' }],
    },
  });
  /** An offer put on sale while its vouchers were valid, whose vouchers_expire.on has since passed. */
  const expiredOffer = async (overrides: Record<string, unknown> = {}, on = yesterday) => {
    const id = await seedOffer(h, subClient, { initial_quantity: 5, ...overrides });
    await h.services.db
      .updateTable('offers')
      .set({ document: sql`jsonb_set(document, '{vouchers_expire}', ${JSON.stringify({ on })}::jsonb)` })
      .where('id', '=', id)
      .execute();
    return id;
  };

  it('refuses an order of it with 409 vouchers_expired and takes nothing, even beside a sellable offer', async () => {
    const expired = await expiredOffer();
    const fine = await seedOffer(h, subClient, { initial_quantity: 5 });
    const before = await eventTypes(expired);
    const res = await order([
      { offer_id: fine, quantity: 1 },
      { offer_id: expired, quantity: 1 },
    ]);
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({
      code: 'vouchers_expired',
      field: 'items[1].offer_id',
      offer_id: expired,
      vouchers_expire: { on: yesterday },
      message: expect.stringContaining('vouchers_expire.on'),
    });
    for (const id of [expired, fine]) expect(await offerRow(id)).toMatchObject({ quantity_in_stock: 5, reserved_quantity: 0 });
    expect(await eventTypes(expired)).toEqual(before);
    const vouchers = await h.services.db.selectFrom('vouchers').select('id').where('offer_id', 'in', [expired, fine]).execute();
    expect(vouchers).toEqual([]);
  });

  it('sells an offer whose vouchers expire today, or a period after purchase', async () => {
    const lastDay = await expiredOffer({}, today);
    const placed = await order([{ offer_id: lastDay, quantity: 1 }]);
    expect(placed.statusCode).toBe(200);
    expect(placed.json().order.vouchers[0].expiration_date).toBe(today);
    const relative = await seedOffer(h, subClient, { initial_quantity: 5, vouchers_expire: { days_after_purchase: 1 } });
    expect((await order([{ offer_id: relative, quantity: 1 }])).statusCode).toBe(200);
  });

  it('refuses to hold a reservation of it (a hold promises a sale), holding nothing', async () => {
    const expired = await expiredOffer();
    const account = (await call('POST', `${DIST}/accounts`, { account: { name: 'Corner Blog' } })).json().account.id;
    expect((await call('PUT', `${DIST}/accounts/${account}`, { account: { status: 'active' } })).statusCode).toBe(200);
    const res = await call('POST', `${DIST}/offers/${expired}/reservations`, {
      reservation: { account_id: account, quantity_reserved: 2, start_date: today, end_date: addDays(today, 30) },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'vouchers_expired', field: 'offer_id' });
    expect(await offerRow(expired)).toMatchObject({ quantity_in_stock: 5, reserved_quantity: 0 });
  });

  it('refuses to raise a reservation held before the expiry passed, and still lets it shrink', async () => {
    const offer = await seedOffer(h, subClient, { initial_quantity: 5 });
    const account = (await call('POST', `${DIST}/accounts`, { account: { name: 'Late Blog' } })).json().account.id;
    expect((await call('PUT', `${DIST}/accounts/${account}`, { account: { status: 'active' } })).statusCode).toBe(200);
    const held = await call('POST', `${DIST}/offers/${offer}/reservations`, {
      reservation: { account_id: account, quantity_reserved: 2, start_date: today, end_date: addDays(today, 30) },
    });
    expect(held.statusCode).toBe(200);
    const reservation = held.json().reservation.id;
    await h.services.db
      .updateTable('offers')
      .set({ document: sql`jsonb_set(document, '{vouchers_expire}', ${JSON.stringify({ on: yesterday })}::jsonb)` })
      .where('id', '=', offer)
      .execute();
    const url = `${DIST}/offers/${offer}/reservations/${reservation}`;
    const raised = await call('PUT', url, { reservation: { quantity_reserved: 3 } });
    expect(raised.statusCode).toBe(409);
    expect(raised.json().errors[0]).toMatchObject({ code: 'vouchers_expired', field: 'quantity_reserved' });
    expect(await offerRow(offer)).toMatchObject({ quantity_in_stock: 3, reserved_quantity: 2 });
    const lowered = await call('PUT', url, { reservation: { quantity_reserved: 1 } });
    expect(lowered.statusCode).toBe(200);
    expect(await offerRow(offer)).toMatchObject({ quantity_in_stock: 4, reserved_quantity: 1 });
  });

  it('does not list or show it to publishers; once its expiry is recorded it closes like a sold-out offer', async () => {
    const city = `Expiry ${crypto.randomUUID().slice(0, 8)}`;
    const query = `${DIST}/offers?country_code=US&state_code=NY&city=${encodeURIComponent(city)}`;
    const expired = await expiredOffer(cityOffer(city));
    const fine = await seedOffer(h, subClient, { initial_quantity: 5, ...cityOffer(city) });
    const listed = await call('GET', query);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().offers.map((o: { id: string }) => o.id)).toEqual([fine]);
    expect((await call('GET', `${DIST}/offers/${expired}`)).statusCode).toBe(404);

    // The review workflow's step at the expiry (the workflow test drives its timer): twice, as a retry would.
    const key = `test:${expired}:expiry`;
    const recorded = Date.now();
    for (let i = 0; i < 2; i++) await recordVouchersExpired(h.services.db, { key, offerId: expired, vouchersExpireOn: yesterday });
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'data'])
      .where('offer_id', '=', expired)
      .where('type', '=', 'offer.sold_out')
      .execute();
    expect(events).toEqual([
      { type: 'offer.sold_out', data: expect.objectContaining({ reason: 'vouchers_expired', vouchers_expire: { on: yesterday } }) },
    ]);
    // Distributors hear it as they hear selling out.
    const row = await h.services.db.selectFrom('offers').selectAll().where('id', '=', expired).executeTakeFirstOrThrow();
    expect(distributionEventType(events[0], row)).toBe('offer.sold_out');
    expect(row.quantity_in_stock).toBe(5);
    // Catalogue syncs find it among the recently closed, dated when it closed.
    const closed = (await call('GET', `${query}&recently_closed=1`)).json().offers;
    expect(closed.map((o: { id: string }) => o.id)).toEqual([expired]);
    const closedAt = Date.parse(closed[0].closed_at);
    expect(closedAt).toBeGreaterThanOrEqual(Math.max(endOfUtcDayMs(yesterday), recorded - 1000));
  });

  describe('the offer itself', () => {
    const sub = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) => call(method, `${SUB}${url}`, payload, subKey);
    const expectExpiryRefused = (res: { statusCode: number; json(): { errors: Array<Record<string, unknown>> } }, message: RegExp) => {
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([expect.objectContaining({ code: 'invalid_field', field: 'vouchers_expire.on' })]);
      expect(res.json().errors[0].message).toMatch(message);
    };

    it('is refused on creation with vouchers already expired at its start, its activation or today', async () => {
      const create = (o: Record<string, unknown>) => sub('POST', '/offers', { offer: validOffer(o) });
      expectExpiryRefused(await create({ start_date: addDays(today, 10), vouchers_expire: { on: addDays(today, 5) } }), /start_date/);
      expectExpiryRefused(
        await create({ vouchers_activation_date: addDays(today, 10), vouchers_expire: { on: addDays(today, 5) } }),
        /vouchers_activation_date/,
      );
      // The case found: running to 2099, vouchers expiring in the past.
      expectExpiryRefused(await create({ start_date: addDays(today, -300), vouchers_expire: { on: yesterday } }), /already be expired/);
      expect((await create({ vouchers_expire: { on: today } })).statusCode).toBe(200);
    });

    it('is refused an edit that leaves its vouchers expired; moving vouchers_expire.on is accepted', async () => {
      const created = await sub('POST', '/offers', { offer: validOffer({ start_date: addDays(today, -30) }) });
      const id = created.json().offer.id;
      expect((await sub('PUT', `/offers/${id}`, { offer: { status: 'withdrawn' } })).statusCode).toBe(200);
      await waitForOfferStatus(h, id, 'withdrawn');
      expectExpiryRefused(await sub('PUT', `/offers/${id}`, { offer: { vouchers_expire: { on: yesterday } } }), /already be expired/);
      // Time passed: the stored date is over, so any edit must move it.
      await h.services.db
        .updateTable('offers')
        .set({ document: sql`jsonb_set(document, '{vouchers_expire}', ${JSON.stringify({ on: yesterday })}::jsonb)` })
        .where('id', '=', id)
        .execute();
      expectExpiryRefused(await sub('PUT', `/offers/${id}`, { offer: { title: 'New title' } }), /already be expired/);
      const moved = await sub('PUT', `/offers/${id}`, { offer: { vouchers_expire: { on: addDays(today, 60) } } });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().offer.vouchers_expire).toEqual({ on: addDays(today, 60) });
    });
  });
});
