import { seedOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { callbackBuilder } from '../../../schemas/callback-event';
import { DEFAULT_REVENUE_SHARES } from '../../../domain/money';
import { setEndpoint } from '../../../store/callback-endpoints';
import { CallbackReceiver, type ReceivedCallback } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { DIST, SUB } from '../../setup/paths';

const USD = (amount: number) => ({ currency_code: 'USD', amount });

type Redemption = { id: string; amount: { currency_code: string; amount: number } | null; rolled_back_at: string | null };

describe('redemption rollback', () => {
  let h: Harness;
  let dist: string;
  let distClientId: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => {
    ({ h, sub } = await harnessWithKeys());
    ({ key: dist, clientId: distClientId } = await h.client('distribution'));
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, key: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const buy = async (offerId: string) => {
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: {
        order_number: `r-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada Lovelace',
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order.vouchers[0] as { id: string; redemption_code: string };
  };
  const redeem = async (offerId: string, voucherId: string, amount?: unknown) => {
    const res = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${voucherId}`, sub.key, {
      voucher: { status: 'redeemed', ...(amount ? { amount } : {}) },
    });
    expect(res.statusCode).toBe(200);
    const redemptions = res.json().voucher.redemptions as Redemption[];
    return redemptions[redemptions.length - 1];
  };
  const rollback = (offerId: string, voucherId: string, redemptionId: string, key = sub.key) =>
    call('POST', `${SUB}/offers/${offerId}/vouchers/${voucherId}/redemptions/${redemptionId}/rollback`, key);

  it('makes a deal acquired again once; a second rollback is 409 already_rolled_back', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const v = await buy(offerId);
    const r = await redeem(offerId, v.id);
    expect(r.amount).toBeNull();
    const back = await rollback(offerId, v.id, r.id);
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ status: 'OK', voucher: { status: 'acquired', redeemed_at: null, redemption_count: 1 } });
    expect(back.json().voucher.redemptions[0]).toMatchObject({ id: r.id, rolled_back_at: expect.any(String) });
    const twice = await rollback(offerId, v.id, r.id);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().errors[0]).toMatchObject({ code: 'already_rolled_back', redemption_id: r.id });
    // Redeemable again: a second redemption, the first still shown rolled back.
    const r2 = await redeem(offerId, v.id);
    expect(r2.id).not.toBe(r.id);
    const now = (await call('GET', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key)).json().voucher;
    expect(now).toMatchObject({ status: 'redeemed', redemption_count: 2 });
  });

  it("puts a gift card's amount back, by the advertiser's reference in XML; parallel rollbacks succeed once", async () => {
    const offerId = await seedOffer(h, sub.clientId, { type: 'gift_card', value: USD(5000), price: USD(4000), initial_quantity: 5 });
    const v = await buy(offerId);
    await redeem(offerId, v.id, USD(1000));
    const all = await redeem(offerId, v.id);
    expect(all.amount).toEqual(USD(4000));
    const { advertiser_id } = await h.services.db
      .selectFrom('offers')
      .select('advertiser_id')
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    const xml = await h.app.inject({
      method: 'POST',
      url: `${SUB}/advertisers/${advertiser_id}/vouchers/${v.redemption_code}/redemptions/${all.id}/rollback`,
      headers: { 'x-service-api-key': sub.key, accept: 'application/xml' },
    });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<status>acquired</status>');
    expect(xml.body).toContain('<balance><currency_code>USD</currency_code><amount>4000</amount></balance>');
    expect(xml.body).toMatch(
      new RegExp(
        `<id>${all.id}</id><amount><currency_code>USD</currency_code><amount>4000</amount></amount><redeemed_at>[^<]+</redeemed_at><rolled_back_at>[^<]+</rolled_back_at>`,
      ),
    );
    const [first] = (await call('GET', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key)).json().voucher.redemptions as Redemption[];
    const racing = await Promise.all(Array.from({ length: 6 }, () => rollback(offerId, v.id, first.id)));
    expect(racing.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.statusCode === 409)).toHaveLength(5);
    const row = await h.services.db.selectFrom('vouchers').selectAll().where('id', '=', v.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ balance_amount: 5000, status: 'acquired', redeemed_at: null });
  });

  it('refuses after REDEMPTION_ROLLBACK_HOURS (409 rollback_window_closed); others and the distribution interface get 404', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const v = await buy(offerId);
    const r = await redeem(offerId, v.id);
    const old = new Date(Date.now() - 25 * 3_600_000);
    await h.services.db.updateTable('voucher_redemptions').set({ redeemed_at: old }).where('id', '=', r.id).execute();
    const late = await rollback(offerId, v.id, r.id);
    expect(late.statusCode).toBe(409);
    expect(late.json().errors[0]).toMatchObject({ code: 'rollback_window_closed', redemption_id: r.id });
    expect((await call('GET', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key)).json().voucher.status).toBe('redeemed');
    expect((await rollback(offerId, v.id, r.id, await h.key('submission'))).statusCode).toBe(404);
    expect((await rollback(offerId, v.id, 'rdm_nothing')).statusCode).toBe(404);
    const onDist = await call('POST', `${DIST}/offers/${offerId}/vouchers/${v.id}/redemptions/${r.id}/rollback`, dist);
    expect(onDist.statusCode).toBe(404);
    // A redeemed voucher of a cancelled order stays redeemed: its redemption is settled.
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: {
        order_number: `c-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada',
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    });
    const w = res.json().order.vouchers[0];
    const rw = await redeem(offerId, w.id);
    expect((await call('PUT', `${DIST}/orders/${res.json().order.id}`, dist, { order: { status: 'cancelled' } })).statusCode).toBe(200);
    const settled = await rollback(offerId, w.id, rw.id);
    expect(settled.statusCode).toBe(409);
    expect(settled.json().errors[0]).toMatchObject({ code: 'conflict', message: expect.stringMatching(/order is cancelled/) });
  });

  it('redemptions and rollbacks are outbox events for the advertiser and the distributor that sold the voucher only', async () => {
    const offerId = await seedOffer(h, sub.clientId, { type: 'gift_card', value: USD(3000), price: USD(3000), initial_quantity: 5 });
    const v = await buy(offerId);
    const r = await redeem(offerId, v.id, USD(1200));
    expect((await rollback(offerId, v.id, r.id)).statusCode).toBe(200);
    const events = await h.services.db
      .selectFrom('offer_events')
      .selectAll()
      .where('offer_id', '=', offerId)
      .where('type', 'like', 'voucher.%')
      .orderBy('sequence')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['voucher.redeemed', 'voucher.redemption_rolled_back']);
    const [offer] = await h.services.db.selectFrom('offers').selectAll().where('id', '=', offerId).execute();
    const build = callbackBuilder(DEFAULT_REVENUE_SHARES);
    const forSeller = build(events[1], offer, { client_id: distClientId, interface: 'distribution' });
    expect(forSeller?.type).toBe('voucher.redemption_rolled_back');
    const data = (forSeller!.payload as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({
      voucher_id: v.id,
      voucher_status: 'acquired',
      balance: USD(3000),
      redemption: { id: r.id, amount: USD(1200), rolled_back_at: expect.any(String) },
    });
    expect(data).not.toHaveProperty('distribution_client_id');
    expect(build(events[0], offer, { client_id: sub.clientId, interface: 'submission' })?.type).toBe('voucher.redeemed');
    expect(build(events[0], offer, { client_id: 'cli_other', interface: 'distribution' })).toBeNull();
    expect(build(events[0], offer, { client_id: 'cli_other', interface: 'submission' })).toBeNull();
  });

  it('delivers both as callbacks to the advertiser and the seller; another publisher gets none', async () => {
    const receivers = await Promise.all([new CallbackReceiver().start(), new CallbackReceiver().start(), new CallbackReceiver().start()]);
    const [forSub, forSeller, forOther] = receivers;
    try {
      const other = await h.client('distribution');
      for (const [clientId, r] of [
        [sub.clientId, forSub],
        [distClientId, forSeller],
        [other.clientId, forOther],
      ] as const)
        await setEndpoint(h.services.db, { clientId, url: r.url, format: 'json', secretKeys: undefined });
      const offerId = await seedOffer(h, sub.clientId, { type: 'gift_card', value: USD(2000), price: USD(2000), initial_quantity: 5 });
      const v = await buy(offerId);
      const r = await redeem(offerId, v.id, USD(700));
      expect((await rollback(offerId, v.id, r.id)).statusCode).toBe(200);
      const voucherEvents = (rs: CallbackReceiver) => rs.received.filter((c: ReceivedCallback) => c.json?.data?.voucher_id === v.id);
      for (const rs of [forSub, forSeller]) {
        const got = await eventually('both voucher callbacks', () => voucherEvents(rs).length >= 2 && voucherEvents(rs));
        expect(got.map((c) => c.json.type)).toEqual(['voucher.redeemed', 'voucher.redemption_rolled_back']);
        expect(got[0].json.data).toMatchObject({
          voucher_status: 'acquired',
          balance: USD(1300),
          redemption: { id: r.id, rolled_back_at: null },
        });
        expect(got[1].json.data).toMatchObject({ balance: USD(2000), redemption: { id: r.id, rolled_back_at: expect.any(String) } });
        expect(got[1].json.sequence).toBeGreaterThan(got[0].json.sequence);
      }
      // Deliveries are written for every endpoint in the dispatching transaction: none exists for the other publisher.
      const toOther = await h.services.db
        .selectFrom('callback_deliveries as d')
        .innerJoin('callback_endpoints as e', 'e.id', 'd.endpoint_id')
        .innerJoin('offer_events as ev', 'ev.id', 'd.event_id')
        .select('d.id')
        .where('e.client_id', '=', other.clientId)
        .where('ev.offer_id', '=', offerId)
        .where('ev.type', 'like', 'voucher.%')
        .execute();
      expect(toOther).toEqual([]);
      expect(voucherEvents(forOther)).toEqual([]);
    } finally {
      await Promise.all(receivers.map((rs) => rs.stop()));
    }
  });
});
